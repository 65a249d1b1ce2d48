/**
 * Values written into OData URLs: literals of `$filter` and key predicates (`Customers(7)`,
 * `Addresses(customer_id=7,type='main')`). A value is always data: strings are quoted with `'`
 * and their quotes doubled, numbers are written in plain decimal notation (some services, SAP CAP
 * among them, do not read exponents), and a key predicate is percent-encoded as a path segment, so
 * no value can end a literal, a segment or the URL's path.
 *
 * Values reach here in the canonical form of records/field-values.ts (checked by their field's
 * type); the Edm class of the property decides the spelling.
 */
import { ConnectorError } from '../connector-error.js';
import type { EdmClass } from './edm-types.js';

/** `'O''Brien'`. */
export function stringLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A finite number without exponent: 1e21 → `1000000000000000000000`, 1.5e-7 → `0.00000015`. */
export function plainNumber(value: number): string {
  const shortest = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(shortest);
  if (match === null) return shortest;
  const [, sign, whole, fraction = '', exponent] = match;
  const digits = whole! + fraction;
  const point = whole!.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

const GUID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const WHOLE = /^[-+]?\d+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function notALiteral(what: string): ConnectorError {
  return new ConnectorError('invalid-value', `the odata connector cannot write ${what} as an OData literal`, {
    details: { connector: 'odata' },
  });
}

/**
 * The literal of a value of a property of class `edm`: text quoted, numbers plain, booleans
 * `true`/`false`, dates `YYYY-MM-DD`, date-times ISO UTC with milliseconds, guids bare.
 */
export function literal(edm: EdmClass, value: unknown): string {
  // Never `'undefined'`, `null` or `[object Object]` in a URL: a value missing here is a mistake upstream.
  if (value === undefined || value === null) throw notALiteral('a missing value (null or undefined)');
  switch (edm) {
    case 'text':
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint')
        throw notALiteral('a value that is not text for a text property');
      return stringLiteral(String(value));
    case 'guid':
      if (typeof value !== 'string' || !GUID.test(value)) throw notALiteral('a value that is not a GUID for an Edm.Guid property');
      return value;
    case 'integer':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
      if ((typeof value === 'string' || typeof value === 'bigint') && WHOLE.test(String(value))) return String(value).replace(/^\+/, '');
      throw notALiteral('a value that is not a whole number for an integer property');
    case 'decimal':
    case 'double':
      if (typeof value === 'number' && Number.isFinite(value)) return plainNumber(value === 0 ? 0 : value);
      throw notALiteral('a value that is not a finite number for a numeric property');
    case 'boolean':
      if (typeof value !== 'boolean') throw notALiteral('a value that is not true or false for an Edm.Boolean property');
      return String(value);
    case 'date':
      if (typeof value === 'string' && DATE.test(value)) return value;
      throw notALiteral('a value that is not a date (YYYY-MM-DD) for an Edm.Date property');
    case 'datetime': {
      const time = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
      if (!Number.isFinite(time)) throw notALiteral('a value that is not a date-time for an Edm.DateTimeOffset property');
      return new Date(time).toISOString();
    }
    case 'other':
      throw notALiteral('a value of a property that is not a plain scalar');
  }
}

export interface KeyPart {
  name: string;
  edm: EdmClass;
}

/**
 * The key predicate of an entity, encoded for a URL path: `(7)` for a single key, `(a=1,b='x')`
 * for a compound one. Each literal is percent-encoded (`/`, `?`, `#`, `%`, `&`, `+`, spaces and
 * non-ASCII characters), its quotes kept, so that the segment reads back as the same value.
 */
export function keyPredicate(parts: readonly KeyPart[], values: Readonly<Record<string, unknown>>): string {
  const encoded = parts.map((part) => encodeURIComponent(literal(part.edm, values[part.name])));
  if (parts.length === 1) return `(${encoded[0]})`;
  return `(${parts.map((part, index) => `${part.name}=${encoded[index]}`).join(',')})`;
}

/** A literal of a key predicate read back: text unquoted, numbers and booleans as themselves, GUIDs and dates as text. */
function readLiteral(text: string): unknown {
  if (/^'(?:[^']|'')*'$/.test(text)) return text.slice(1, -1).replaceAll("''", "'");
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(text)) return Number(text);
  if (GUID.test(text) || /^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[-+]\d{2}:\d{2}))?$/.test(text)) return text;
  return undefined;
}

/**
 * The key values in the entity id a service sends for a created entity (`OData-EntityId` or
 * `Location`: `…/Customers(7)`, `…/Addresses(customer_id=7,type='main')`); undefined when the URL
 * does not end in a key predicate of these parts.
 */
export function keyOfEntityId(parts: readonly KeyPart[], entityId: string): Record<string, unknown> | undefined {
  let path: string;
  try {
    path = decodeURIComponent(new URL(entityId, 'http://entity.invalid/').pathname);
  } catch {
    return undefined;
  }
  const predicate = /\(((?:[^()']|'(?:[^']|'')*')*)\)$/.exec(path)?.[1];
  if (predicate === undefined) return undefined;
  const pieces = predicate.match(/(?:[^,']|'(?:[^']|'')*')+/g) ?? [];
  const key: Record<string, unknown> = {};
  if (parts.length === 1 && pieces.length === 1 && !/^[A-Za-z_]\w*=/.test(pieces[0]!)) {
    key[parts[0]!.name] = readLiteral(pieces[0]!);
  } else {
    for (const piece of pieces) {
      const equals = piece.indexOf('=');
      if (equals > 0) key[piece.slice(0, equals).trim()] = readLiteral(piece.slice(equals + 1).trim());
    }
  }
  return parts.every((part) => key[part.name] !== undefined) ? key : undefined;
}
