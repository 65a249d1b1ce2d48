/**
 * Values of records by declared field type, the same for every connector.
 *
 * Read (`decodeValue`): whatever the system gives — a driver's value, JSON, text of a CSV cell —
 * becomes what records carry: String as text; Integer as a number when it is a safe integer, else
 * as the text of its digits (a bigint, text, or a double past 2^53 such as parsed JSON keeps when
 * it holds the value exactly: exact-json.ts); Number as a number (decimals may arrive as
 * text), or as exact decimal text when a double cannot hold it (a decimal(30,10), digits past
 * 2^53, 1e400; one spelling per value); Boolean as true/false (1/0 and 'true'/'false' too); Date
 * as `YYYY-MM-DD`; DateTime as ISO 8601 UTC with milliseconds (`2024-01-05T10:00:00.000Z`; text
 * without an offset is UTC); Json parsed, whole numbers a double cannot hold as their digits. A value that cannot be read as its type is passed on as it came.
 *
 * Write (`checkFieldValue`): the value is checked against the type and given in that same
 * canonical form; a value that does not fit is ConnectorError('invalid-value') naming the field.
 * A connector then turns the canonical value into what its system takes (the sql connector's
 * engines bind booleans and date-times their own way: sql/value-codec.ts).
 */
import type { FieldType } from '../../definitions/types.js';
import { isoDateProblem, matchIsoDate, toEpochMillis } from '../../definitions/expression/iso-dates.js';
import { ConnectorError } from '../connector-error.js';
import { parseExactJson } from './exact-json.js';
import { jsonValueProblem } from './json-value-problem.js';
import {
  booleanFrom as booleanOf,
  doubleHolds,
  type ExactDecimal,
  exactDecimal,
  numberFromText as numberOf,
} from '../../definitions/expression/index.js';

const WHOLE_NUMBER = /^\s*[-+]?\d+\s*$/;

/**
 * The whole number a text spells (digits, a sign, spaces around) as its canonical text — no `+`, no
 * leading zeros, `0` for `-0` — else undefined. Worked out on the characters, in one pass: BigInt's
 * parse and print are not linear, and one integer of 33 million digits in a peer's answer held the
 * process for over a minute.
 */
export function wholeNumberText(text: string): string | undefined {
  if (!WHOLE_NUMBER.test(text)) return undefined;
  const trimmed = text.trim();
  const signed = trimmed[0] === '-' || trimmed[0] === '+';
  let at = signed ? 1 : 0;
  while (at < trimmed.length - 1 && trimmed.charCodeAt(at) === 0x30) at += 1;
  const digits = trimmed.slice(at);
  return trimmed[0] === '-' && digits !== '0' ? `-${digits}` : digits;
}

/** Digits of the largest safe integer, 9007199254740991. */
const SAFE_DIGITS = 16;

function integerFromText(raw: string): number | string | null {
  const whole = wholeNumberText(raw);
  if (whole === undefined) return null;
  const digits = whole.length - (whole[0] === '-' ? 1 : 0);
  if (digits > SAFE_DIGITS) return whole;
  const number = Number(whole);
  return Number.isSafeInteger(number) ? number : whole;
}

function isoDateTime(raw: unknown): string | null {
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? null : raw.toISOString();
  const millis = toEpochMillis(raw);
  return millis === null ? null : new Date(millis).toISOString();
}

/**
 * DateTime text already in the form decodeValue gives (what SQLite's `strftime('%Y-%m-%dT%H:%M:%fZ')`
 * stores): decoding returns it unchanged — a real instant prints back the same, and an impossible
 * day (`02-30`) is not an instant, so the text is kept — without parsing it on every read.
 */
const CANONICAL_DATE_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

export type Decoder = (raw: unknown) => unknown;

function decodeString(raw: unknown): unknown {
  if (typeof raw === 'string') return raw;
  if (raw === null || raw === undefined) return null;
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  if (raw instanceof Date) return isoDateTime(raw) ?? String(raw);
  if (typeof raw !== 'object') return String(raw);
  // An object JSON text cannot carry (nested past 1,000 levels: JSON.stringify's RangeError failed
  // the whole read) stays as it is: a write of it then fails that record alone, as not text.
  return jsonValueProblem(raw) === undefined ? JSON.stringify(raw) : raw;
}

function decodeInteger(raw: unknown): unknown {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) || !Number.isInteger(raw) ? raw : BigInt(raw).toString();
  if (raw === null || raw === undefined) return null;
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  if (typeof raw === 'bigint') return integerFromText(raw.toString());
  if (typeof raw === 'string') return integerFromText(raw) ?? numberOf(raw) ?? raw;
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  return raw;
}

/** No exponent: up to 15 characters such a text has at most 15 significant digits between 1e-14 and 1e15. */
const EXPONENT = /[eE]/;

/** The digits of a decimal positional up to this many zeros around them; further out, as `1.5e-400`. */
const PLAIN_ZEROS = 80;

/**
 * One spelling per decimal value (no sign on zero, no leading zeros, no trailing fractional zeros):
 * PostgreSQL's numeric(30,10) '1234567890123.4567000000' and MariaDB's decimal(30,4)
 * '1234567890123.4567' are the same value, so a sync finds no change between them.
 */
function decimalText({ negative, digits, exponent }: ExactDecimal): string {
  const sign = negative ? '-' : '';
  if (exponent >= 0 && exponent <= PLAIN_ZEROS) return `${sign}${digits}${'0'.repeat(exponent)}`;
  if (exponent < 0 && -exponent <= PLAIN_ZEROS) {
    const point = digits.length + exponent;
    return point > 0 ? `${sign}${digits.slice(0, point)}.${digits.slice(point)}` : `${sign}0.${'0'.repeat(-point)}${digits}`;
  }
  const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
  return `${sign}${digits[0]}${rest}e${exponent + digits.length - 1}`;
}

/**
 * A numeric text as a number when a double holds its value exactly, else as the exact decimal text
 * (decimalText): a decimal(30,10) or an id past 2^53 that a double would round stays exact from
 * source to target, as an Integer past 2^53 does, and so does a value past a double's range
 * (1e400, which a double makes Infinity; 1e-400, which it makes 0). Null for a text that is no
 * number. A text of up to 15 characters without an exponent has at most 15 significant digits,
 * which a double always holds: the common case costs one regular expression more than Number.
 */
function exactNumber(text: string): number | string | null {
  const number = numberOf(text);
  if (number !== null && text.length <= 15 && !EXPONENT.test(text)) return number;
  if (number !== null && doubleHolds(number, text)) return number;
  const exact = exactDecimal(text);
  return exact === null ? null : decimalText(exact);
}

function decodeNumber(raw: unknown): unknown {
  if (typeof raw === 'number') return raw;
  if (raw === null || raw === undefined) return null;
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  if (typeof raw === 'bigint') return exactNumber(raw.toString());
  if (typeof raw === 'string') return exactNumber(raw) ?? raw;
  return raw;
}

function decodeBoolean(raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  if (typeof raw === 'number' || typeof raw === 'bigint') return Number(raw) !== 0;
  if (typeof raw === 'string') return booleanOf(raw) ?? (raw === 't' ? true : raw === 'f' ? false : raw);
  return raw;
}

function decodeDate(raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  if (raw instanceof Date) return Number.isNaN(raw.getTime()) ? null : raw.toISOString().slice(0, 10);
  if (typeof raw !== 'string') return raw;
  const parts = matchIsoDate(raw, 0, 'lenient');
  return parts !== null && isoDateProblem(parts) === null ? raw.slice(0, 10) : raw;
}

function decodeDateTime(raw: unknown): unknown {
  if (typeof raw === 'string' && CANONICAL_DATE_TIME.test(raw)) return raw;
  if (raw === null || raw === undefined) return null;
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  return isoDateTime(raw) ?? raw;
}

function decodeJson(raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  if (typeof raw !== 'string') return raw;
  try {
    return parseExactJson(raw);
  } catch {
    return raw;
  }
}

function decodeUntyped(raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  if (Buffer.isBuffer(raw)) raw = raw.toString('utf8');
  if (raw instanceof Date) return isoDateTime(raw);
  if (typeof raw === 'bigint') return integerFromText(raw.toString());
  return raw;
}

const DECODERS: Record<FieldType, Decoder> = {
  String: decodeString,
  Integer: decodeInteger,
  Number: decodeNumber,
  Boolean: decodeBoolean,
  Date: decodeDate,
  DateTime: decodeDateTime,
  Json: decodeJson,
};

/**
 * The decoder of one field type, so that readers pick it once per field rather than switching on
 * the type for every value. Each one starts with the most common case of its type.
 */
export function decoderFor(type: FieldType | undefined): Decoder {
  return type === undefined ? decodeUntyped : DECODERS[type];
}

/** A system's value as the record carries it. */
export function decodeValue(type: FieldType | undefined, raw: unknown): unknown {
  return decoderFor(type)(raw);
}

/** Where a checked value goes, for messages. */
export interface FieldTarget {
  /** `Object.field` or `Object.group[type].field`. */
  label: string;
  maxLength?: number;
}

function invalid(target: FieldTarget, expected: string, raw: unknown): ConnectorError {
  const got =
    raw === null
      ? 'null'
      : Array.isArray(raw)
        ? 'an array'
        : raw instanceof Date
          ? 'an invalid date'
          : typeof raw === 'string'
            ? `'${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw}'`
            : typeof raw === 'object'
              ? 'an object'
              : typeof raw === 'number' && !Number.isFinite(raw)
                ? `${raw} (no number a system stores)`
                : `a ${typeof raw}`;
  return new ConnectorError('invalid-value', `${target.label}: expected ${expected}, got ${got}`, {
    details: { field: target.label, expected },
  });
}

function checkText(target: FieldTarget, raw: unknown): string {
  let textValue: string;
  if (typeof raw === 'string') textValue = raw;
  else if ((typeof raw === 'number' && Number.isFinite(raw)) || typeof raw === 'bigint' || typeof raw === 'boolean')
    textValue = String(raw);
  else throw invalid(target, 'text', raw);
  if (target.maxLength !== undefined && Array.from(textValue).length > target.maxLength) {
    throw new ConnectorError('invalid-value', `${target.label}: longer than the ${target.maxLength} characters allowed`, {
      details: { field: target.label, maxLength: target.maxLength },
    });
  }
  return textValue;
}

/**
 * A write value checked against its type, in the form records carry (see above); null stays null
 * (required fields are checked by the caller). Json values are returned as given, once known to
 * be JSON data that JSON text can carry whole (json-value-problem.ts: no Infinity, which JSON text
 * would make null, and no nesting past MAX_JSON_DEPTH levels).
 */
export function checkFieldValue(type: FieldType, raw: unknown, target: FieldTarget): unknown {
  if (raw === null || raw === undefined) return null;
  switch (type) {
    case 'String':
      return checkText(target, raw);
    case 'Integer': {
      if (typeof raw === 'number' && Number.isSafeInteger(raw)) return raw;
      const whole = typeof raw === 'string' || typeof raw === 'bigint' ? integerFromText(String(raw)) : null;
      if (whole === null) throw invalid(target, 'a whole number', raw);
      return whole;
    }
    case 'Number': {
      // Text or a bigint a double cannot hold exactly ('1e400' too) is written as exact decimal text
      // (exactNumber); a JS number must be finite.
      const number = typeof raw === 'number' ? raw : typeof raw === 'bigint' || typeof raw === 'string' ? exactNumber(String(raw)) : null;
      if (number === null || (typeof number === 'number' && !Number.isFinite(number))) throw invalid(target, 'a number', raw);
      return number;
    }
    case 'Boolean': {
      const flag = booleanOf(raw);
      if (flag === null) throw invalid(target, 'true or false', raw);
      return flag;
    }
    case 'Date': {
      if (raw instanceof Date && !Number.isNaN(raw.getTime())) return raw.toISOString().slice(0, 10);
      const parts = typeof raw === 'string' ? matchIsoDate(raw.trim(), 0, 'lenient') : null;
      if (typeof raw !== 'string' || parts === null || parts.length !== raw.trim().length || isoDateProblem(parts) !== null) {
        throw invalid(target, 'a date (YYYY-MM-DD)', raw);
      }
      return raw.trim().slice(0, 10);
    }
    case 'DateTime': {
      const iso = typeof raw === 'string' || raw instanceof Date ? isoDateTime(raw) : null;
      if (iso === null) throw invalid(target, 'an ISO 8601 date-time', raw);
      return iso;
    }
    case 'Json': {
      if (typeof raw === 'function' || typeof raw === 'symbol') throw invalid(target, 'JSON data', raw);
      const problem = jsonValueProblem(raw);
      if (problem !== undefined) {
        throw new ConnectorError('invalid-value', `${target.label}: expected JSON data, but ${problem}`, {
          details: { field: target.label, expected: 'JSON data' },
        });
      }
      return raw;
    }
  }
}

/**
 * Whether two values of one field, each read or checked into the canonical form, are the same value:
 * scalars by their text (7 and '7' for an Integer), objects and arrays (Json) by their content as
 * canonical JSON, properties in any order — their text would be '[object Object]' for all of them.
 */
export function sameFieldValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return false;
  if (typeof a === 'object' || typeof b === 'object') {
    const text = canonicalJson(a);
    return text !== undefined && text === canonicalJson(b);
  }
  return String(a) === String(b);
}

/** JSON with the properties of every object in code unit order; a Date as its ISO text, as JSON spells it. */
function canonicalJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, (_name, inner: unknown) =>
      typeof inner === 'object' && inner !== null && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
        : inner,
    );
  } catch {
    // A bigint or a cycle inside: no JSON, so no content to compare.
    return undefined;
  }
}
