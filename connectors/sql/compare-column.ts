/**
 * Comparisons of a column with a constant or another column, written so the database selects
 * exactly the records for which the JS evaluator's `compareValues` (over the record as the
 * connector reads it) gives true. The constant is converted the way the evaluator would convert it
 * for that column's type:
 *
 * | column      | constant       | compared as                                                    |
 * |-------------|----------------|----------------------------------------------------------------|
 * | String      | string         | text, by code point, case- and trailing-space-sensitively        |
 * | String      | number         | numbers, when the text is entirely a number; else unknown        |
 * | String      | boolean        | booleans, when the text is true/false/1/0; else unknown          |
 * | Integer/Num | number/numeric string | numbers; other strings are unknown                      |
 * | Integer/Num | boolean        | booleans, when the number is 1 or 0; else unknown                |
 * | Boolean     | anything boolean-like (true/false, 1/0, 'true'/'false'/'1'/'0') | booleans     |
 * | Date        | date literal   | instants (a date is midnight UTC)                                |
 * | DateTime    | date literal   | instants                                                       |
 * | Date/DateTime | string       | the ISO text as read (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SS.mmmZ`)  |
 * | String      | date literal   | not supported (422): declare the field as Date or DateTime       |
 * | Json        | anything       | not supported (422)                                             |
 *
 * Any other pair, and a null constant, is unknown: the comparison matches nothing, and NOT of it
 * matches nothing either — three-valued logic, as in the evaluator.
 */
import type { CompareOperator } from '../../definitions/expression/index.js';
import { ConnectorError } from '../connector-error.js';
import { booleanOf, classOf, describeColumn, numberOf, unsupported, type ColumnOperand } from './filter-operand.js';
import type { Engine } from './engines/index.js';
import { numberFromText } from './numeric-text.js';
import { doubleHolds } from '../../definitions/expression/index.js';
import { textForm } from './sql-dialect.js';
import { falseUnlessNull, or, sql, text, trueUnlessNull, UNKNOWN, value, join, type SqlFragment } from './sql-fragment.js';

/** Two sides of a comparison; `prefilter` is an index-friendly superset test for equality (MariaDB). */
interface Pair {
  left: SqlFragment;
  right: SqlFragment;
  prefilter?: [SqlFragment, SqlFragment];
}

type Coercion = { kind: 'pair'; pair: Pair } | { kind: 'unknown' } | { kind: 'predicate'; sql: SqlFragment };

const unknownCoercion: Coercion = { kind: 'unknown' };

const FLIPPED: Readonly<Record<CompareOperator, CompareOperator>> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

export function flip(op: CompareOperator): CompareOperator {
  return FLIPPED[op];
}

/**
 * `engine.binaryText(left)`, the same fragment again for the same column expression and engine as
 * the call before: the constants of a list (`equalsAny`) then share one left side, which it
 * groups by identity before it compares texts.
 */
let lastBinaryText: { engine: Engine; left: SqlFragment; fragment: SqlFragment } | undefined;

function binaryTextOf(engine: Engine, left: SqlFragment): SqlFragment {
  const last = lastBinaryText;
  if (last !== undefined && last.left === left && last.engine === engine) return last.fragment;
  const fragment = engine.binaryText(left);
  lastBinaryText = { engine, left, fragment };
  return fragment;
}

function textPair(engine: Engine, op: CompareOperator, left: SqlFragment, right: string): Pair {
  if (engine.textEquality === 'plain' && (op === '=' || op === '<>')) return { left, right: value(right) };
  const pair: Pair = { left: binaryTextOf(engine, left), right: engine.binaryTextValue(right) };
  if (engine.textEquality === 'binary-after-plain' && op === '=') pair.prefilter = [left, value(right)];
  return pair;
}

function pair(left: SqlFragment, right: SqlFragment): Coercion {
  return { kind: 'pair', pair: { left, right } };
}

/** The text spelled as a boolean (JS trim, any case), as 1/0, or NULL. */
function booleanFromText(engine: Engine, expression: SqlFragment): SqlFragment {
  const word = engine.binaryText(sql`LOWER(${engine.jsTrim(expression)})`);
  const spelled = (words: string[]): SqlFragment =>
    join(
      words.map((w) => engine.binaryTextValue(w)),
      ', ',
    );
  return sql`(CASE WHEN ${word} IN (${spelled(['true', '1'])}) THEN 1 WHEN ${word} IN (${spelled(['false', '0'])}) THEN 0 END)`;
}

function dateCoercion(engine: Engine, column: ColumnOperand, op: CompareOperator, instant: Date): Coercion {
  const millis = instant.getTime();
  const day = instant.toISOString().slice(0, 10);
  const dayMillis = 86_400_000;
  if (((millis % dayMillis) + dayMillis) % dayMillis === 0) {
    const [left, right] = engine.dateOperands(column.sql, day);
    return pair(left, right);
  }
  // A date is its midnight, so it never equals an instant later that day and is below it exactly when the day is not later.
  if (op === '=') return { kind: 'predicate', sql: falseUnlessNull(column.sql) };
  if (op === '<>') return { kind: 'predicate', sql: trueUnlessNull(column.sql) };
  const [left, right] = engine.dateOperands(column.sql, day);
  const dayOp = op === '<' || op === '<=' ? '<=' : '>';
  return { kind: 'predicate', sql: sql`(${left} ${text(dayOp)} ${right})` };
}

const ORDERING: ReadonlySet<CompareOperator> = new Set(['<', '<=', '>', '>=']);
const ISO_DAY = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;
const CANONICAL_DATE_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** Whether `text` is `YYYY-MM-DD` of a real day (not 02-30, which a database would refuse to cast). */
function isDay(text: string): boolean {
  if (!ISO_DAY.test(text)) return false;
  const millis = Date.parse(`${text}T00:00:00.000Z`);
  return !Number.isNaN(millis) && new Date(millis).toISOString().slice(0, 10) === text;
}

/**
 * A DateTime column ordered against canonical ISO text (`2024-01-05T10:00:00.000Z`, what records
 * carry and a sync's cursor binds): the text of the column, which stops at milliseconds, compares
 * with it exactly as the column's instant compares with that millisecond — `> t` being `>= t + 1ms`
 * and `<= t` being `< t + 1ms` — so the comparison is made on the column itself (on SQLite, on the
 * very strftime text), where an index on it serves the range instead of a scan of every row.
 */
function instantRange(engine: Engine, column: ColumnOperand, op: CompareOperator, iso: string): Coercion {
  const millis = Date.parse(iso);
  // An impossible day (02-30) is no instant: compared as text, as before.
  if (Number.isNaN(millis) || new Date(millis).toISOString() !== iso) {
    return { kind: 'pair', pair: textPair(engine, op, engine.isoDateTimeText(column.sql), iso) };
  }
  const past = op === '>' || op === '<=';
  const [left, right] = engine.dateTimeOperands(column.sql, new Date(past ? millis + 1 : millis));
  const nativeOp = op === '>' ? '>=' : op === '<=' ? '<' : op;
  return { kind: 'predicate', sql: sql`(${left} ${text(nativeOp)} ${right})` };
}

function coerce(engine: Engine, column: ColumnOperand, op: CompareOperator, raw: unknown): Coercion {
  let constant = typeof raw === 'bigint' ? Number(raw) : raw;
  if (constant === null || constant === undefined) return unknownCoercion;
  if (constant instanceof Date && Number.isNaN(constant.getTime())) return unknownCoercion;
  if (typeof constant === 'number' && Number.isNaN(constant)) return unknownCoercion;
  if (typeof constant === 'object' && !(constant instanceof Date)) return unknownCoercion;
  const kind = classOf(column.type);
  switch (kind) {
    case 'json':
      throw unsupported(`a comparison with the Json field '${column.label}'`);
    case 'untyped':
      if (constant instanceof Date) constant = engine.dateTimeText(constant.toISOString());
      if (typeof constant === 'boolean') constant = engine.booleanBinding(constant);
      return pair(column.sql, value(constant));
    case 'boolean': {
      const flag = constant instanceof Date ? null : booleanOf(constant);
      return flag === null ? unknownCoercion : pair(column.sql, value(engine.booleanBinding(flag)));
    }
    case 'number':
      // A driver's bigint past 2^53 is compared as it is, not as the double it rounds to.
      if (typeof raw === 'bigint' && !Number.isSafeInteger(constant)) return pair(column.sql, engine.exactNumber(raw.toString()));
      if (typeof constant === 'number') return pair(column.sql, engine.numberValue(constant));
      if (typeof constant === 'string') {
        const number = numberOf(constant);
        if (number === null) return unknownCoercion;
        // Text a double cannot hold as written (an id past 2^53, a long decimal) is bound exactly.
        return pair(column.sql, doubleHolds(number, constant) ? engine.numberValue(number) : engine.exactNumber(constant.trim()));
      }
      if (typeof constant === 'boolean') {
        return pair(sql`(CASE WHEN ${column.sql} = 0 OR ${column.sql} = 1 THEN ${column.sql} END)`, value(constant ? 1 : 0));
      }
      return unknownCoercion;
    case 'text':
      if (constant instanceof Date) {
        throw unsupported(`comparing the String field '${column.label}' with a date; declare it as Date or DateTime`);
      }
      if (typeof constant === 'string') return { kind: 'pair', pair: textPair(engine, op, column.sql, constant) };
      if (typeof constant === 'number') return pair(numberFromText(engine, column.sql), value(constant));
      if (typeof constant === 'boolean') return pair(booleanFromText(engine, column.sql), value(constant ? 1 : 0));
      return unknownCoercion;
    case 'date':
      if (constant instanceof Date) return dateCoercion(engine, column, op, constant);
      if (typeof constant === 'string' && ORDERING.has(op) && isDay(constant)) {
        // A DATE has no time of day: its ISO text orders exactly as the date, compared natively so
        // an index on the column serves the range (a sync's cursor).
        const [left, right] = engine.dateOperands(column.sql, constant);
        return pair(left, right);
      }
      if (typeof constant === 'string') return { kind: 'pair', pair: textPair(engine, op, engine.isoDateText(column.sql), constant) };
      return unknownCoercion;
    case 'datetime':
      if (constant instanceof Date) {
        const [left, right] = engine.dateTimeOperands(column.sql, constant);
        return pair(left, right);
      }
      if (typeof constant === 'string' && ORDERING.has(op) && CANONICAL_DATE_TIME.test(constant))
        return instantRange(engine, column, op, constant);
      if (typeof constant === 'string') return { kind: 'pair', pair: textPair(engine, op, engine.isoDateTimeText(column.sql), constant) };
      return unknownCoercion;
  }
}

function comparePair(op: CompareOperator, { left, right, prefilter }: Pair): SqlFragment {
  const compared = sql`(${left} ${text(op)} ${right})`;
  if (op !== '=' || prefilter === undefined) return compared;
  return sql`(${prefilter[0]} = ${prefilter[1]} AND ${compared})`;
}

/** `column op constant`. */
export function compareWithConstant(engine: Engine, column: ColumnOperand, op: CompareOperator, constant: unknown): SqlFragment {
  const coercion = coerce(engine, column, op, constant);
  switch (coercion.kind) {
    case 'unknown':
      return UNKNOWN;
    case 'predicate':
      return coercion.sql;
    case 'pair':
      return comparePair(op, coercion.pair);
  }
}

/** `column IN (constants…)`: true when one is equal, else unknown when one comparison is unknown, else false. */
export function equalsAny(engine: Engine, column: ColumnOperand, constants: readonly unknown[]): SqlFragment {
  const groups = new Map<number, Pair[]>();
  const others: SqlFragment[] = [];
  let anyUnknown = false;
  // The left sides are mostly one and the same fragment (the column): each fragment's text is
  // worked out once and numbered, equal texts alike, and the pairs are grouped by those numbers.
  const numbers = new Map<SqlFragment | null, number>();
  const byText = new Map<string, number>();
  const numberOf = (fragment: SqlFragment | null): number => {
    let known = numbers.get(fragment);
    if (known === undefined) {
      const text = JSON.stringify(fragment);
      known = byText.get(text) ?? byText.size;
      byText.set(text, known);
      numbers.set(fragment, known);
    }
    return known;
  };
  for (const constant of constants) {
    const coercion = coerce(engine, column, '=', constant);
    if (coercion.kind === 'unknown') anyUnknown = true;
    else if (coercion.kind === 'predicate') others.push(coercion.sql);
    else {
      const key = numberOf(coercion.pair.left) * 2 ** 26 + numberOf(coercion.pair.prefilter?.[0] ?? null);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [coercion.pair]);
      else group.push(coercion.pair);
    }
  }
  const lists = [...groups.values()].map((pairs) => {
    const first = pairs[0]!;
    const list = sql`(${first.left} IN (${join(
      pairs.map((p) => p.right),
      ', ',
    )}))`;
    if (first.prefilter === undefined) return list;
    const prefilter = sql`(${first.prefilter[0]} IN (${join(
      pairs.map((p) => p.prefilter![1]),
      ', ',
    )}))`;
    return sql`(${prefilter} AND ${list})`;
  });
  return or([...lists, ...others, ...(anyUnknown ? [UNKNOWN] : [])]);
}

/** `left op right` for two columns of compatible types. */
export function compareColumns(engine: Engine, left: ColumnOperand, op: CompareOperator, right: ColumnOperand): SqlFragment {
  const a = classOf(left.type);
  const b = classOf(right.type);
  const plain = sql`(${left.sql} ${text(op)} ${right.sql})`;
  if (a === 'untyped' || b === 'untyped') return plain;
  const textual = new Set(['text', 'date', 'datetime']);
  if (a === b && a !== 'json' && a !== 'text') return plain;
  if (textual.has(a) && textual.has(b)) {
    // Both are text to the evaluator (dates are read as ISO text): compare those texts exactly.
    const leftText = textForm(engine, left.type, left.sql)!;
    const rightText = textForm(engine, right.type, right.sql)!;
    if (engine.textEquality === 'plain' && (op === '=' || op === '<>')) return sql`(${leftText} ${text(op)} ${rightText})`;
    return sql`(${engine.binaryText(leftText)} ${text(op)} ${engine.binaryText(rightText)})`;
  }
  throw new ConnectorError('unsupported', `the sql connector cannot compare ${describeColumn(left)} with ${describeColumn(right)}`, {
    details: { connector: 'sql', construct: 'comparison of fields of different types' },
  });
}
