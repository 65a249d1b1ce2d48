/**
 * Field types guessed from sample values, for discover: the http connector's JSON answers, the file
 * connector's CSV cells and JSON values. A guess is a starting point the engineer reviews, so it
 * errs towards String.
 *
 * Each value is of one kind. A JSON value is of its own (a number, a boolean, an object or array),
 * and its text is looked at for dates only: "7" stays text. A CSV cell is text and is read for what
 * it spells: a whole number without a leading zero (a zip code stays text), any other number,
 * true/false in any case, a valid ISO date or date-time, or JSON.
 *
 * The kinds of a field's values give its type: Integer when all are whole numbers (safe integers:
 * a larger one is no exact Integer), Number when all are numbers, Boolean, Date, DateTime (dates
 * among date-times too: a date is the start of its day), Json; text with some dates is String.
 * Values of kinds no type holds together are String — or Json when one of them is an object or
 * array, since Json holds any JSON value. Null, missing and (CSV) empty values say nothing of the
 * type: the caller leaves them out.
 */
import { isoDateProblem, matchIsoDate, toEpochMillis } from '../../definitions/expression/iso-dates.js';
import type { FieldType } from '../../definitions/types.js';
import { JsonNumberText } from './json-number-text.js';

/** `json`: an object or array; `json-text`: a CSV cell spelling one. */
export type ValueKind = 'integer' | 'number' | 'boolean' | 'date' | 'datetime' | 'string' | 'json' | 'json-text';

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;
const BOOLEAN = /^(?:true|false)$/i;
/** The shape of a date-time; whether it is one is what decoding a DateTime accepts (toEpochMillis). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;

function isDate(text: string): boolean {
  if (text.length !== 10) return false;
  const parts = matchIsoDate(text, 0, 'lenient');
  return parts !== null && parts.length === 10 && isoDateProblem(parts) === null;
}

function textKind(text: string): 'date' | 'datetime' | 'string' {
  if (isDate(text)) return 'date';
  return DATE_TIME.test(text) && toEpochMillis(text) !== null ? 'datetime' : 'string';
}

/** The kind of a JSON value (not null). */
export function kindOfValue(value: unknown): ValueKind {
  // A number past 2^53 a file or an answer held (exact-json.ts parseMarkedJson): of the kind its digits spell.
  if (value instanceof JsonNumberText) return kindOfText(value.text);
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return textKind(value);
  return 'json';
}

function isJsonText(text: string): boolean {
  if (!/^\s*[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The kind of what a CSV cell spells (not empty). */
export function kindOfText(text: string): ValueKind {
  if (INTEGER.test(text) && Number.isSafeInteger(Number(text))) return 'integer';
  if (NUMBER.test(text) && Number.isFinite(Number(text))) return 'number';
  if (BOOLEAN.test(text)) return 'boolean';
  const kind = textKind(text);
  if (kind !== 'string') return kind;
  return isJsonText(text) ? 'json-text' : 'string';
}

/** The type of values of `kinds` (at least one); `mixed` when no type holds them together and the type is a guess. */
export function typeOfKinds(kinds: ReadonlySet<ValueKind>): { type: FieldType; mixed: boolean } {
  const only = (...allowed: ValueKind[]) => [...kinds].every((kind) => allowed.includes(kind));
  if (only('integer')) return { type: 'Integer', mixed: false };
  if (only('integer', 'number')) return { type: 'Number', mixed: false };
  if (only('boolean')) return { type: 'Boolean', mixed: false };
  if (only('date')) return { type: 'Date', mixed: false };
  if (only('date', 'datetime')) return { type: 'DateTime', mixed: false };
  if (only('json') || only('json-text')) return { type: 'Json', mixed: false };
  if (only('string', 'date', 'datetime')) return { type: 'String', mixed: false };
  return { type: kinds.has('json') ? 'Json' : 'String', mixed: true };
}
