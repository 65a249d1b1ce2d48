/**
 * Numbers written into JSON with all their digits. Records carry an Integer past 2^53, and a Number
 * no double holds (a decimal(30,10), 1e400), as the text of its value (field-values.ts), and
 * JSON.stringify writes that text as a string: `"id":"9007199254740993"`. An API that declares the
 * field a number may refuse that (Go's encoding/json does) or store it as text. Here such a value is
 * wrapped in a JsonNumberText where a write body is built from typed fields, and `stringifyJson`
 * writes it as the bare number `"id":9007199254740993`, exactly as the system sent it to us.
 *
 * A body without such a value is JSON.stringify's, unchanged and at its speed; one with them is
 * written by the small writer below, which follows JSON.stringify's rules (toJSON, undefined
 * properties left out, undefined in arrays as null).
 */
import type { FieldType } from '../../definitions/types.js';

/** A JSON number given by its text, written without quotes. */
export class JsonNumberText {
  constructor(readonly text: string) {}

  /** Where something else serializes it (a log line, JSON.stringify), it is the string of its digits. */
  toJSON(): string {
    return this.text;
  }

  /** In a path, a message or a comparison key: its digits. */
  toString(): string {
    return this.text;
  }
}

/**
 * `value` as records carry it: a JsonNumberText is the text of its digits (as parseExactJson would
 * have read it), at any depth of a plain object or array; what holds none is returned as it is.
 */
export function unmarked(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof JsonNumberText) return value.text;
  if (!holdsNumberText(value)) return value;
  if (Array.isArray(value)) return value.map(unmarked);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unmarked(item)]));
}

/** RFC 8259's number: what may stand bare in JSON. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A checked value of a field of `type`, as it goes into a JSON body: an Integer or Number carried
 * as the text of its value becomes a JsonNumberText; anything else is returned as it is.
 */
export function jsonValueOf(type: FieldType, value: unknown): unknown {
  return (type === 'Integer' || type === 'Number') && typeof value === 'string' && JSON_NUMBER.test(value)
    ? new JsonNumberText(value)
    : value;
}

/** `values` (checked, by field name) as a body holds them: each through jsonValueOf by its field's type; undeclared ones as they are. */
export function jsonValues(
  values: Readonly<Record<string, unknown>>,
  typeOf: (name: string) => FieldType | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const type = typeOf(name);
    body[name] = type === undefined ? value : jsonValueOf(type, value);
  }
  return body;
}

/** The digits of a whole number past 2^53, as reading JSON makes such a number (exact-json.ts); no leading zero. */
const WIDE_INTEGER = /^-?[1-9]\d{15,}$/;

/**
 * A value a system sent, going back to it in a field of a whole-number type (a PUT of the whole
 * record, group entries merged over those it had): the digits of a number past 2^53, which reading
 * JSON made text (exact-json.ts), are the bare number again. Anything else goes as it came.
 */
export function resentInteger(value: unknown): unknown {
  return typeof value === 'string' && WIDE_INTEGER.test(value) && !Number.isSafeInteger(Number(value)) ? new JsonNumberText(value) : value;
}

/** `raw` (what a system sent) with resentInteger applied to the properties `names`; `raw` itself when none changes. */
export function resentIntegers(raw: Readonly<Record<string, unknown>>, names: Iterable<string>): Record<string, unknown> {
  let body: Record<string, unknown> | undefined;
  for (const name of names) {
    if (!Object.hasOwn(raw, name)) continue;
    const value = resentInteger(raw[name]);
    if (value !== raw[name]) (body ??= { ...raw })[name] = value;
  }
  return body ?? raw;
}

/** Whether `value` holds a JsonNumberText in a plain object or array, at any depth. */
function holdsNumberText(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (value instanceof JsonNumberText) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsNumberText(item)) return true;
    return false;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const item of Object.values(value)) if (holdsNumberText(item)) return true;
  return false;
}

/** `value` as JSON text, as JSON.stringify writes it, but each JsonNumberText as its bare number. */
export function stringifyJson(value: unknown): string {
  return holdsNumberText(value) ? (write(value, '') ?? 'null') : JSON.stringify(value);
}

/** JSON.stringify(value) for one value under `key`; undefined where JSON.stringify leaves the property out. */
function write(value: unknown, key: string): string | undefined {
  if (value instanceof JsonNumberText) return value.text;
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (Array.isArray(value)) {
    // An indexed loop, not map: a hole is null, as JSON.stringify writes it.
    const items: string[] = [];
    for (let index = 0; index < value.length; index += 1) items.push(write(value[index], String(index)) ?? 'null');
    return `[${items.join(',')}]`;
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const members: string[] = [];
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    const member = write((value as Record<string, unknown>)[name], name);
    if (member !== undefined) members.push(`${JSON.stringify(name)}:${member}`);
  }
  return `{${members.join(',')}}`;
}
