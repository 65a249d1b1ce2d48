/**
 * JSON read without rounding its whole numbers. `JSON.parse` makes every number a double, so a
 * 64-bit id past 2^53 written as a JSON number — a REST API's snowflake id, an OData Int64, a
 * number inside a jsonb column — silently becomes its neighbour (9007199254740993 becomes …992):
 * another record's key, which a sync would then match, update or create under. Here a whole
 * number that a double does not hold exactly is read as the text of its digits instead, the form
 * records carry an Integer too large for a double (field-values.ts), so the digits arrive exact.
 * Every other number is what JSON.parse makes of it — 9007199254740992 and 100000000000000000000
 * are doubles exactly, so they stay numbers and a Json value written back keeps its types.
 *
 * The text is looked at only when it has 16 digits in a row somewhere, which such a number needs:
 * the common answer costs one regular expression over its text.
 */

import { JsonNumberText } from './json-number-text.js';

const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);
/** Whole numbers of at most 15 digits are all safe; longer ones are compared exactly. */
const safeDigits = 15;
const longDigitRun = /\d{16}/;
/** An exponent of three digits or more: where a number past a double's range (1e400, 1e-400) can be. */
const longExponent = /[eE][+-]?\d{3}/;

/** Whether `text` may hold a number JSON.parse would not give exactly: the scan for them is skipped otherwise. */
function mayHoldInexact(text: string): boolean {
  return longDigitRun.test(text) || longExponent.test(text);
}

/**
 * Whether the number token text[start, end) is past a double's range: JSON.parse makes it Infinity
 * (1e400) or 0 (1e-400, not zero). Past 1.8e308 or below 5e-324 takes an exponent, or more than
 * 300 characters of digits.
 */
export function outOfDoubleRange(text: string, start: number, end: number): boolean {
  if (end - start < 300 && !/[eE]/.test(text.slice(start, end))) return false;
  const token = text.slice(start, end);
  const value = Number(token);
  return !Number.isFinite(value) || (value === 0 && /[1-9]/.test(token.replace(/[eE].*$/, '')));
}

/**
 * `text` parsed as JSON (throws as JSON.parse does), whole numbers a double does not hold as the
 * text of their digits, and numbers past a double's range as their text (a String field kept
 * `1e400` as "Infinity", and `1e-400` became 0).
 */
export function parseExactJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!mayHoldInexact(text)) return value;
  const spans = inexactIntegerSpans(text);
  return spans.length === 0 ? value : JSON.parse(quoteSpans(text, spans));
}

/**
 * As parseExactJson, but each such number is a JsonNumberText rather than a string: for JSON that
 * may be written back (a file's row rewritten), where a number must stay a number and a string a
 * string. Its readers unmark it (json-number-text.ts `unmarked`).
 *
 * The numbers are quoted behind a control character the text holds nowhere — a JSON string can
 * hold one only as its `\u00XX` escape, so a string starting with it is one of them — and the
 * reviver turns those strings back. A text that escapes every candidate (none does in practice)
 * gets parseExactJson's strings.
 */
export function parseMarkedJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!mayHoldInexact(text)) return value;
  const spans = inexactIntegerSpans(text);
  if (spans.length === 0) return value;
  const mark = MARKS.find((candidate) => !text.includes(`\\u00${candidate}`));
  if (mark === undefined) return JSON.parse(quoteSpans(text, spans));
  const code = Number.parseInt(mark, 16);
  return JSON.parse(quoteSpans(text, spans, `\\u00${mark}`), (_key, item: unknown) =>
    typeof item === 'string' && item.charCodeAt(0) === code ? new JsonNumberText(item.slice(1)) : item,
  );
}

/** Control characters whose JSON escape is spelled with digits only (so one `includes` finds it) and that have no short escape. */
const MARKS = ['00', '01', '02', '03', '04', '05', '06', '07', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19'];

/**
 * The number tokens of JSON `text` (which JSON.parse accepts) that are whole numbers a double does
 * not hold exactly, or past a double's range, as [start, end) offsets.
 */
export function inexactIntegerSpans(text: string): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === 0x22) at = stringEnd(text, at);
    else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      const end = numberEnd(text, at);
      if ((isWideIntegerToken(text, at, end) && !doubleHolds(text.slice(at, end))) || outOfDoubleRange(text, at, end))
        spans.push({ start: at, end });
      at = end - 1;
    }
  }
  return spans;
}

/** `text` with each of `spans` (number tokens) written as a JSON string of its digits, after `prefix` (JSON string text). */
export function quoteSpans(text: string, spans: ReadonlyArray<{ start: number; end: number }>, prefix = ''): string {
  let quoted = '';
  let from = 0;
  for (const { start, end } of spans) {
    quoted += `${text.slice(from, start)}"${prefix}${text.slice(start, end)}"`;
    from = end;
  }
  return quoted + text.slice(from);
}

/** Whether `text` is a whole number (digits, maybe a minus) past ±(2^53 − 1); `1.5`, `1e20` chose a double. */
export function isWideIntegerText(text: string): boolean {
  if (!/^-?\d+$/.test(text)) return false;
  // Counted, not parsed: BigInt takes time past linear, a minute for 33 million digits.
  let at = text.charCodeAt(0) === 0x2d ? 1 : 0;
  while (at < text.length - 1 && text.charCodeAt(at) === 0x30) at += 1;
  const digits = text.length - at;
  if (digits <= safeDigits) return false;
  // 2^53 − 1 has 16 digits: a longer number is past it, one as long is compared exactly.
  if (digits > safeDigits + 1) return true;
  const value = BigInt(text);
  return value > maxSafe || value < -maxSafe;
}

/** Whether the number token text[start, end) is a whole number past 2^53. */
export function isWideIntegerToken(text: string, start: number, end: number): boolean {
  const digits = end - start - (text.charCodeAt(start) === 0x2d ? 1 : 0);
  return digits > safeDigits && isWideIntegerText(text.slice(start, end));
}

/**
 * Whether the double nearest to the whole number `digits` is that number, by its exact binary
 * value. Not compare-values.ts's doubleHolds, which asks whether the double *prints* as the text:
 * 2^64 (18446744073709551616) is a double exactly but prints as …552000, and must stay a number.
 */
function doubleHolds(digits: string): boolean {
  const double = Number(digits);
  return Number.isFinite(double) && BigInt(double) === BigInt(digits);
}

/** The offset of the quote that closes the string opened at `start`. */
export function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === 0x5c) at += 1;
    else if (code === 0x22) return at;
  }
  return text.length;
}

/** The offset just past the number token that starts at `start`. */
export function numberEnd(text: string, start: number): number {
  let end = start + 1;
  while (end < text.length && isNumberCharacter(text.charCodeAt(end))) end += 1;
  return end;
}

function isNumberCharacter(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === 0x2d;
}
