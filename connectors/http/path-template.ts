/**
 * Path templates of an object's operations: `/customers/{id}`, `/accounts/{AccountNumber}/notes`.
 * A placeholder names a field of the record; its value is data, never syntax: it is
 * percent-encoded whole (`/` and `?` included), so `a/b?x=1` stays one path segment, and a value
 * that would still move the request elsewhere — empty, or a segment of only `.` or `..`, which
 * URL parsers resolve (even encoded as %2E) — is refused instead of sent.
 */
import { ConnectorError } from '../connector-error.js';

export type TemplatePart = { kind: 'text'; text: string } | { kind: 'field'; name: string };

export interface PathTemplate {
  /** As written, for messages. */
  text: string;
  parts: readonly TemplatePart[];
  /** The fields it names, in order, each once. */
  fields: readonly string[];
}

/** A problem of a template as written: an unclosed brace, a placeholder that is no field name. */
export class TemplateSyntaxError extends Error {}

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parsePathTemplate(text: string): PathTemplate {
  const parts: TemplatePart[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{', at);
    const close = text.indexOf('}', at);
    if (close !== -1 && (open === -1 || close < open)) throw new TemplateSyntaxError(`'}' at ${close + 1} closes no '{'`);
    if (open === -1) {
      parts.push({ kind: 'text', text: text.slice(at) });
      break;
    }
    if (open > at) parts.push({ kind: 'text', text: text.slice(at, open) });
    const end = text.indexOf('}', open);
    if (end === -1) throw new TemplateSyntaxError(`'{' at ${open + 1} is not closed`);
    const name = text.slice(open + 1, end).trim();
    if (!FIELD_NAME.test(name)) throw new TemplateSyntaxError(`{${name}} is not a field name`);
    parts.push({ kind: 'field', name });
    at = end + 1;
  }
  const fields = [...new Set(parts.flatMap((part) => (part.kind === 'field' ? [part.name] : [])))];
  return { text, parts, fields };
}

/** What a filled path is for, for messages: `Customer`, `update`. */
export interface FillTarget {
  object: string;
  operation: string;
}

function refused(target: FillTarget, template: PathTemplate, field: string, why: string): ConnectorError {
  return new ConnectorError(
    'invalid-value',
    `${target.object}: the ${target.operation} path ${template.text} cannot take ${field}: ${why}`,
    { details: { object: target.object, field, operation: target.operation } },
  );
}

/** The value as it goes into a path: numbers and booleans spelled as JSON spells them, text as it is. */
function segmentText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return undefined;
}

/**
 * The template with each placeholder replaced by the value of its field in `values`, encoded.
 * A missing, null or non-scalar value, or one that would change which resource is meant, is an
 * 'invalid-value' ConnectorError naming the field.
 */
export function fillPathTemplate(template: PathTemplate, values: Readonly<Record<string, unknown>>, target: FillTarget): string {
  let path = '';
  /** The field whose value is in each segment that holds one. */
  const filled = new Map<number, string>();
  for (const part of template.parts) {
    if (part.kind === 'text') {
      path += part.text;
      continue;
    }
    const text = segmentText(values[part.name]);
    if (text === undefined) throw refused(target, template, part.name, 'it has no value (or not one a path can hold)');
    if (text === '') throw refused(target, template, part.name, 'its value is empty');
    filled.set(path.split('/').length - 1, part.name);
    path += encodeURIComponent(text);
  }
  // A segment that holds a value and reads as `.` or `..` would be resolved away by the URL parser.
  path.split('/').forEach((segment, index) => {
    const field = filled.get(index);
    if (field !== undefined && /^(\.|%2e){1,2}$/i.test(segment)) {
      throw refused(target, template, field, "its value makes the segment '.' or '..', which addresses another resource");
    }
  });
  return path;
}
