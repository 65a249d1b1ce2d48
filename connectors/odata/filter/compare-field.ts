/**
 * Comparisons of a field with a constant or with another field, written so that the service
 * selects exactly the records for which the evaluator's `compareValues` (over the record as the
 * connector reads it) gives true — or, for `fails`, false. The constant is converted the way the
 * evaluator converts it for the field's type:
 *
 * | field        | constant                        | becomes                                              |
 * |--------------|---------------------------------|------------------------------------------------------|
 * | String       | text                            | `name op 'text'`                                     |
 * | String       | number, boolean, date           | refused: OData cannot read text as a number, boolean or instant |
 * | Integer/Number | number, numeric text          | `score op 42`; a fraction against an integer property is rounded the way the comparison allows (`lt 4.5` → `le 4`) |
 * | Integer/Number | boolean                       | the records holding 1 or 0: `score eq 1`             |
 * | Boolean      | true/false, 1/0, 'true'/'false'/'1'/'0' | `active eq true`                             |
 * | Date         | date or date-time literal       | as instants: a date is its midnight (`lt 1990-05-17T12:00Z` → `le 1990-05-17`) |
 * | Date         | text                            | the ISO text of the record: a date text as a date, any other text is never equal and cannot be ordered against |
 * | DateTime     | date or date-time literal       | as instants, in UTC with milliseconds                |
 * | DateTime     | text                            | as Date, with the record's text `YYYY-MM-DDTHH:MM:SS.mmmZ` |
 * | Json         | anything                        | refused                                              |
 *
 * Anything else (null, an object, a number against a date…) is unknown for every record: the pair
 * selects nothing either way. Two fields compare when they are of one kind (numbers with numbers,
 * text with text, dates with dates, date-times with date-times, booleans with booleans), each
 * guarded against null: OData's `null eq null` is true, the evaluator's unknown.
 */
import { type CompareOperator, holdsForOrder } from '../../../definitions/expression/index.js';
import { booleanFrom, compareValues, numberFromText } from '../../../definitions/expression/index.js';
import { isoDateProblem, matchIsoDate } from '../../../definitions/expression/iso-dates.js';
import { literal, plainNumber, stringLiteral } from '../odata-literals.js';
import { and, atom, FALSE, or, UNKNOWN_PAIR, type Condition, type Pair } from './filter-condition.js';
import { describeRef, unsupported, withinPair, type FieldRef } from './filter-operand.js';

const WORD: Readonly<Record<CompareOperator, string>> = { '=': 'eq', '<>': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge' };
const NEGATED: Readonly<Record<CompareOperator, CompareOperator>> = { '=': '<>', '<>': '=', '<': '>=', '<=': '>', '>': '<=', '>=': '<' };
const FLIPPED: Readonly<Record<CompareOperator, CompareOperator>> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

export function flip(op: CompareOperator): CompareOperator {
  return FLIPPED[op];
}

/** `ref op literal` where `ref` has a value; `ne` carries its own guard (OData's `null ne 5` is true). */
function comparison(ref: FieldRef, op: CompareOperator, text: string): Condition {
  const compared = atom(`${ref.path} ${WORD[op]} ${text}`);
  return op === '<>' ? and([atom(`${ref.nullPath} ne null`), compared]) : compared;
}

/** The local pair of `ref op literal`: its negation is the opposite operator on a field with a value. */
function plain(ref: FieldRef, op: CompareOperator, text: string): Pair {
  return { holds: comparison(ref, op, text), fails: comparison(ref, NEGATED[op], text) };
}

const localNotNull = (ref: FieldRef): Condition => atom(`${ref.nullPath} ne null`);

/** Never equal (`=` fails wherever the field has a value), always different. */
function neverEqual(ref: FieldRef, op: '=' | '<>'): Pair {
  return op === '=' ? { holds: FALSE, fails: localNotNull(ref) } : { holds: localNotNull(ref), fails: FALSE };
}

/**
 * A field whose values are a few known ones (a Boolean's false and true, an integer's 0 and 1
 * against a boolean): each value goes to `holds` or `fails` by what the evaluator says of it.
 */
function enumerated(ref: FieldRef, op: CompareOperator, values: ReadonlyArray<[unknown, string]>, constant: unknown): Pair {
  const holds: Condition[] = [];
  const fails: Condition[] = [];
  for (const [value, text] of values) {
    const order = compareValues(value, constant);
    if (order === null) continue;
    (holdsForOrder(op, order) ? holds : fails).push(atom(`${ref.path} eq ${text}`));
  }
  return { holds: or(holds), fails: or(fails) };
}

const DAY_MS = 86_400_000;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}$/;
const CANONICAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isValidIso(text: string): boolean {
  const parts = matchIsoDate(text, 0, 'literal');
  return parts !== null && parts.length === text.length && isoDateProblem(parts) === null;
}

/** An instant as the date it falls on and whether it is that date's midnight (UTC). */
function dayOf(ref: FieldRef, instant: Date): { day: string; midnight: boolean } {
  const iso = instant.toISOString();
  if (!DATE_TEXT.test(iso.slice(0, 10)) || iso.length !== 24)
    throw unsupported(`comparing ${describeRef(ref)} with a date outside the years 0000–9999`);
  return { day: iso.slice(0, 10), midnight: ((instant.getTime() % DAY_MS) + DAY_MS) % DAY_MS === 0 };
}

/** Text against a Date or DateTime field, whose record value is its canonical ISO text. */
function isoText(ref: FieldRef, op: CompareOperator, text: string, canonical: (text: string) => boolean): Pair {
  if (canonical(text) && isValidIso(text)) return plain(ref, op, text);
  if (op === '=' || op === '<>') return neverEqual(ref, op);
  throw unsupported(
    `ordering ${describeRef(ref)} against text that is not a ${ref.type === 'Date' ? 'date (YYYY-MM-DD)' : 'date-time (YYYY-MM-DDTHH:MM:SS.mmmZ)'}`,
    'compare with a date or date-time literal instead',
  );
}

/** An integer property against a number with a fraction: rounded so the comparison means the same. */
function integerWithFraction(ref: FieldRef, op: CompareOperator, value: number): Pair {
  const below = plainNumber(Math.floor(value));
  const above = plainNumber(Math.ceil(value));
  switch (op) {
    case '=':
    case '<>':
      return neverEqual(ref, op);
    case '<':
    case '<=':
      return { holds: atom(`${ref.path} le ${below}`), fails: atom(`${ref.path} ge ${above}`) };
    case '>':
    case '>=':
      return { holds: atom(`${ref.path} ge ${above}`), fails: atom(`${ref.path} le ${below}`) };
  }
}

function localConstant(ref: FieldRef, op: CompareOperator, constant: unknown): Pair {
  switch (ref.type) {
    case 'Json':
      throw unsupported(`a comparison with the Json field '${ref.label}'`);
    case 'String':
      if (constant instanceof Date)
        throw unsupported(`comparing the String field '${ref.label}' with a date`, 'declare it as Date or DateTime');
      if (typeof constant === 'number' || typeof constant === 'boolean') {
        throw unsupported(
          `comparing the String field '${ref.label}' with a ${typeof constant}`,
          "the expression language reads text such as '42' or 'true' as a number or boolean there, which OData cannot; compare with text instead",
        );
      }
      if (typeof constant !== 'string') return UNKNOWN_PAIR;
      if (ref.edm === 'guid') {
        if (op !== '=' && op !== '<>') throw unsupported(`ordering the Guid field '${ref.label}'`);
        return /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(constant) ? plain(ref, op, constant) : neverEqual(ref, op);
      }
      return plain(ref, op, stringLiteral(constant));
    case 'Integer':
    case 'Number': {
      if (typeof constant === 'boolean')
        return enumerated(
          ref,
          op,
          [
            [0, '0'],
            [1, '1'],
          ],
          constant,
        );
      const number = typeof constant === 'number' ? constant : typeof constant === 'string' ? numberFromText(constant) : null;
      if (number === null || !Number.isFinite(number)) return UNKNOWN_PAIR;
      if (ref.edm === 'integer' && !Number.isInteger(number)) return integerWithFraction(ref, op, number);
      return plain(ref, op, plainNumber(number === 0 ? 0 : number));
    }
    case 'Boolean':
      if (constant instanceof Date || booleanFrom(constant) === null) return UNKNOWN_PAIR;
      return enumerated(
        ref,
        op,
        [
          [false, 'false'],
          [true, 'true'],
        ],
        booleanFrom(constant),
      );
    case 'Date':
      if (constant instanceof Date) {
        const { day, midnight } = dayOf(ref, constant);
        if (midnight) return plain(ref, op, day);
        // A date is its midnight: never the instant, and below it exactly when its day is not later.
        if (op === '=' || op === '<>') return neverEqual(ref, op);
        return op === '<' || op === '<='
          ? { holds: atom(`${ref.path} le ${day}`), fails: atom(`${ref.path} gt ${day}`) }
          : { holds: atom(`${ref.path} gt ${day}`), fails: atom(`${ref.path} le ${day}`) };
      }
      return typeof constant === 'string' ? isoText(ref, op, constant, (text) => DATE_TEXT.test(text)) : UNKNOWN_PAIR;
    case 'DateTime':
      if (constant instanceof Date) {
        dayOf(ref, constant);
        return plain(ref, op, literal('datetime', constant));
      }
      return typeof constant === 'string' ? isoText(ref, op, constant, (text) => CANONICAL_DATE_TIME.test(text)) : UNKNOWN_PAIR;
  }
}

/** Normalises a constant as the evaluator does: missing is null, bigints are numbers, invalid dates and NaN are nothing. */
function normalise(raw: unknown): unknown {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'bigint') return Number(raw);
  if (raw instanceof Date && Number.isNaN(raw.getTime())) return null;
  if (typeof raw === 'number' && Number.isNaN(raw)) return null;
  if (typeof raw === 'object' && !(raw instanceof Date)) return null;
  return raw;
}

/** `ref op constant` as a pair of conditions of the record. */
export function compareWithConstant(ref: FieldRef, op: CompareOperator, raw: unknown): Pair {
  const constant = normalise(raw);
  if (constant === null) {
    if (ref.type === 'Json') throw unsupported(`a comparison with the Json field '${ref.label}'`);
    return UNKNOWN_PAIR;
  }
  return withinPair(ref.entry, localConstant(ref, op, constant));
}

type Kind = 'number' | 'text' | 'guid' | 'boolean' | 'date' | 'datetime' | 'json';

function kindOf(ref: FieldRef): Kind {
  switch (ref.type) {
    case 'Integer':
    case 'Number':
      return 'number';
    case 'String':
      return ref.edm === 'guid' ? 'guid' : 'text';
    case 'Boolean':
      return 'boolean';
    case 'Date':
      return 'date';
    case 'DateTime':
      return 'datetime';
    case 'Json':
      return 'json';
  }
}

/** `left op right` for two fields of one kind, and of one scope (the record, or one group entry). */
export function compareFields(left: FieldRef, op: CompareOperator, right: FieldRef): Pair {
  const kind = kindOf(left);
  if (kind !== kindOf(right) || kind === 'json' || (kind === 'guid' && op !== '=' && op !== '<>')) {
    throw unsupported(
      `comparing ${describeRef(left)} with ${describeRef(right)}`,
      'only fields of one kind compare (numbers, text, dates, date-times, booleans)',
    );
  }
  if (left.entry?.id !== right.entry?.id) {
    throw unsupported(
      `comparing '${left.label}' with '${right.label}'`,
      'a group field compares only with constants and fields of the same group entry',
    );
  }
  const guard = [atom(`${left.nullPath} ne null`), atom(`${right.nullPath} ne null`)];
  let local: Pair;
  if (kind === 'boolean') {
    const holds: Condition[] = [];
    const fails: Condition[] = [];
    for (const a of [false, true]) {
      for (const b of [false, true]) {
        (holdsForOrder(op, Number(a) - Number(b)) ? holds : fails).push(and([atom(`${left.path} eq ${a}`), atom(`${right.path} eq ${b}`)]));
      }
    }
    local = { holds: or(holds), fails: or(fails) };
  } else {
    local = {
      holds: and([...guard, atom(`${left.path} ${WORD[op]} ${right.path}`)]),
      fails: and([...guard, atom(`${left.path} ${WORD[NEGATED[op]]} ${right.path}`)]),
    };
  }
  return withinPair(left.entry, local);
}
