/**
 * Query parameters and form fields arrive as text, while a request schema says what they mean
 * (`id: {type: integer}`). Before validation, a top-level text value becomes the number or
 * boolean its property declares, when it reads as one exactly; a single value of a property
 * declared as an array becomes a one-element array. Anything else is left for the schema to
 * refuse. JSON bodies are never touched: their types are the sender's.
 */
import type { WebhookRequest } from './webhook-call.js';
import { first } from './webhook-secret.js';

type Schema = Record<string, unknown>;

/** Whether the request's data came from text fields (GET query, form or multipart body). */
export function hasTextFields(request: WebhookRequest): boolean {
  if (request.method !== 'POST') return true;
  const type = (first(request.headers['content-type']) ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data';
}

/** The data with text values converted as the schema's top-level properties declare. */
export function coerceTextFields(data: unknown, schema: Schema): unknown {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties || data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    const converted = property ? coerceValue(value, property) : value;
    Object.defineProperty(out, name, { value: converted, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function coerceValue(value: unknown, schema: Schema): unknown {
  const types = typesOf(schema);
  if (types.includes('array')) {
    const items = (schema.items ?? {}) as Schema;
    const list = Array.isArray(value) ? value : [value];
    return list.map((item) => coerceScalar(item, typesOf(items)));
  }
  return coerceScalar(value, types);
}

function coerceScalar(value: unknown, types: readonly string[]): unknown {
  if (typeof value !== 'string' || types.includes('string')) return value;
  if (types.includes('integer') && /^-?(0|[1-9]\d*)$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
  if (types.includes('number') && /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function typesOf(schema: Schema): string[] {
  const type = schema.type;
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}
