/**
 * How runtime values compare, become text and count as true. The rules are written to agree with
 * what the SQL and OData compilations of the same expression do, so a filter pushed down to a
 * database and the same filter run in JS select the same records.
 */

import type { CompareOperator } from './ast.js';
import { toEpochMillis } from './iso-dates.js';

/** SQL's three truth values: true, false and unknown (null). */
export type Truth = boolean | null;

const NUMERIC_TEXT = /^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/** The number a string spells, when it is entirely a finite decimal number. */
export function numberFromText(text: string): number | null {
  if (!NUMERIC_TEXT.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}

/** A decimal number exactly: its sign, its significant digits (no leading or trailing zeros) and the power of ten of the last one. */
export interface ExactDecimal {
  negative: boolean;
  digits: string;
  exponent: number;
}

const DECIMAL_PARTS = /^\s*([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?\s*$/;

/**
 * The exact value a numeric text, a bigint or a number spells (a number as it prints: `String(n)`,
 * the text a driver binds for it), or null for anything else. Doubles round integers past 2^53 and
 * long decimals; these do not, so two values a double cannot tell apart still compare as they are.
 */
export function exactDecimal(value: unknown): ExactDecimal | null {
  let text: string;
  if (typeof value === 'string') {
    if (!NUMERIC_TEXT.test(value)) return null;
    text = value;
  } else if (typeof value === 'bigint') text = value.toString();
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else return null;
  const parts = DECIMAL_PARTS.exec(text)!;
  const fraction = parts[3] ?? '';
  let digits = `${parts[2]}${fraction}`.replace(/^0+/, '');
  let exponent = Number(parts[4] ?? 0) - fraction.length;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  if (digits === '') return { negative: false, digits: '', exponent: 0 };
  return { negative: parts[1] === '-', digits, exponent };
}

/** Orders two exact decimals: -1, 0 or 1. */
export function compareExact(a: ExactDecimal, b: ExactDecimal): number {
  const signOf = (x: ExactDecimal) => (x.digits === '' ? 0 : x.negative ? -1 : 1);
  if (signOf(a) !== signOf(b)) return sign(signOf(a) - signOf(b));
  if (signOf(a) === 0) return 0;
  // Magnitudes: first by where the leading digit stands, then digit by digit.
  const lead = a.digits.length + a.exponent - (b.digits.length + b.exponent);
  let magnitude = sign(lead);
  if (magnitude === 0) {
    const width = Math.max(a.digits.length, b.digits.length);
    const x = a.digits.padEnd(width, '0');
    const y = b.digits.padEnd(width, '0');
    magnitude = x < y ? -1 : x > y ? 1 : 0;
  }
  return a.negative ? -magnitude : magnitude;
}

/** A text shared by exactly the values equal to this one as numbers (exactDecimal), or null for a non-number. */
export function exactDecimalKey(value: unknown): string | null {
  const exact = exactDecimal(value);
  return exact === null ? null : `${exact.negative ? '-' : ''}${exact.digits}e${exact.exponent}`;
}

/**
 * Whether a double holds the value a numeric text spells, as the double prints (String(n), the text
 * a driver binds): false for an id past 2^53 or a long decimal the double rounds, and for 1e-400.
 */
export function doubleHolds(number: number, text: string): boolean {
  return exactDecimalKey(number) === exactDecimalKey(text);
}

/**
 * A whole number past 2^53 as a double — what JSON parsing makes of such digits, rounded already
 * (1234567890123456790 arrives as …800), so its digits are not the ones written.
 */
export function roundedInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
}

/** Booleans as other systems spell them: 1/0 (SQLite, MySQL), 'true'/'false'/'1'/'0' (forms, query strings). */
export function booleanFrom(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : null;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
  }
  return null;
}

function sign(difference: number): number {
  return difference < 0 ? -1 : difference > 0 ? 1 : 0;
}

/** Missing becomes null; bigints (from database drivers) compare as numbers. */
function normalise(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/**
 * Orders two values: -1, 0 or 1, or null when they cannot be compared (SQL's unknown).
 *
 * - null or missing on either side: unknown.
 * - a Date on either side: both are read as instants (a Date, or an ISO date/date-time string;
 *   a date is midnight UTC, a date-time without offset is UTC); anything else is unknown.
 * - objects and arrays: unknown.
 * - number and number: numerically; NaN is unknown.
 * - number and string: numerically when the string is entirely a finite number, else unknown;
 *   exactly as written, not as doubles (`9007199254740993` is not `9007199254740992`).
 * - boolean and boolean, number 1/0, or string 'true'/'false'/'1'/'0': as booleans (false < true).
 * - string and string: by UTF-16 code unit, case-sensitively.
 * - anything else: unknown.
 */
export function compareValues(left: unknown, right: unknown): number | null {
  const a = normalise(left);
  const b = normalise(right);
  if (a === null || b === null) return null;
  if (a instanceof Date || b instanceof Date) {
    const x = toEpochMillis(a);
    const y = toEpochMillis(b);
    return x === null || y === null ? null : sign(x - y);
  }
  if (typeof a === 'object' || typeof b === 'object') return null;
  if (typeof a === 'boolean' || typeof b === 'boolean') {
    const x = booleanFrom(a);
    const y = booleanFrom(b);
    return x === null || y === null ? null : sign(Number(x) - Number(y));
  }
  if (typeof a === 'number' || typeof b === 'number') {
    const x = typeof a === 'number' ? a : typeof a === 'string' ? numberFromText(a) : null;
    const y = typeof b === 'number' ? b : typeof b === 'string' ? numberFromText(b) : null;
    if (x === null || y === null || Number.isNaN(x) || Number.isNaN(y)) return null;
    const order = sign(x - y);
    // Equal as doubles, yet maybe not as written: ids past 2^53, long decimals.
    if (order !== 0 || (typeof left === 'number' && typeof right === 'number')) return order;
    return compareExact(exactDecimal(left)!, exactDecimal(right)!);
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

/**
 * The text LIKE and the string functions see: strings as they are, numbers in their JS spelling,
 * valid Dates as ISO 8601 UTC; anything else (null, booleans, objects) has none.
 */
export function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value === 'bigint') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return null;
}

/**
 * What a bare value means as a condition (`#flag#`, `active`):
 * null or missing is unknown; booleans are themselves; numbers are true unless 0 (NaN is unknown);
 * strings are false when empty or 'false' or '0' (ignoring case and surrounding spaces), otherwise
 * true; a valid Date is true; objects and arrays are unknown.
 */
export function truthOf(value: unknown): Truth {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isNaN(value) ? null : value !== 0;
  if (typeof value === 'bigint') return value !== 0n;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    return !(text === '' || text === 'false' || text === '0');
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : true;
  return null;
}

export function not(value: Truth): Truth {
  return value === null ? null : !value;
}

/** Whether `op` holds for two values whose compareValues order is `order`. */
export function holdsForOrder(op: CompareOperator, order: number): boolean {
  switch (op) {
    case '=':
      return order === 0;
    case '<>':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}
