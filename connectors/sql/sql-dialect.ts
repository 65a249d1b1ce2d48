/**
 * The few places where SQLite, PostgreSQL and MariaDB/MySQL need different SQL to mean the same
 * thing as the JS evaluator: exact (binary, case- and trailing-space-sensitive) text comparison,
 * the text a value has for LIKE, JS's `trim`, and how values are bound. Everything else is
 * portable SQL built by the compiler. Each engine's module (engines/) holds its own spelling;
 * here is what the compiler asks for, by dialect.
 *
 * Assumed column types: DateTime fields are timestamp/timestamptz (PostgreSQL), DATETIME/TIMESTAMP
 * (MariaDB) or ISO 8601 text (SQLite); Date fields are DATE or `YYYY-MM-DD` text; Boolean fields
 * are boolean (PostgreSQL) or 0/1 integers. Sessions run in UTC (see engines/).
 */
import type { FieldType } from '../../definitions/types.js';
import { engines, type EngineName } from './engines/index.js';
import { identifier, sql, text, type SqlFragment } from './sql-fragment.js';

export type Dialect = EngineName;

/** How a boolean is bound: PostgreSQL has a boolean type, the others store 1/0. */
export function booleanBinding(dialect: Dialect, flag: boolean): boolean | number {
  return engines[dialect].booleanBinding(flag);
}

/** `expression` compared and ordered by code point, case- and trailing-space-sensitively. */
export function binaryText(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return engines[dialect].binaryText(expression);
}

/** A bound text value on the right-hand side of a `binaryText` comparison. */
export function binaryTextValue(dialect: Dialect, bound: string): SqlFragment {
  return engines[dialect].binaryTextValue(bound);
}

/**
 * Text of a value for LIKE and the string functions, as the JS evaluator's `textOf` sees the record
 * value. Exact for String, Integer, Date and DateTime; a Number is spelled by the database, which
 * may differ from JS for whole numbers kept as REAL or DECIMAL ('42.0', '42.00' against '42').
 */
export function textForm(dialect: Dialect, type: FieldType | undefined, expression: SqlFragment): SqlFragment | null {
  switch (type) {
    case 'String':
      return expression;
    case 'Boolean':
    case 'Json':
      // textOf(boolean) and textOf(object) have no text.
      return null;
    case 'Date':
      return isoDateText(dialect, expression);
    case 'DateTime':
      return isoDateTimeText(dialect, expression);
    default:
      return castText(dialect, expression);
  }
}

export function castText(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return engines[dialect].castText(expression);
}

export function castNumber(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return engines[dialect].castNumber(expression);
}

/** `YYYY-MM-DD`, as Date fields are read. */
export function isoDateText(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return engines[dialect].isoDateText(expression);
}

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC, as DateTime fields are read (JS `toISOString`). */
export function isoDateTimeText(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return engines[dialect].isoDateTimeText(expression);
}

/** A Date field compared with a `YYYY-MM-DD` value. */
export function dateOperands(dialect: Dialect, expression: SqlFragment, day: string): [SqlFragment, SqlFragment] {
  return engines[dialect].dateOperands(expression, day);
}

/** A DateTime field compared with an instant. */
export function dateTimeOperands(dialect: Dialect, expression: SqlFragment, instant: Date): [SqlFragment, SqlFragment] {
  return engines[dialect].dateTimeOperands(expression, instant);
}

/** JS `trim()`: the same set of whitespace characters, bound as data. */
export function jsTrim(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return engines[dialect].jsTrim(expression);
}

export function charLength(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return engines[dialect].charLength(expression);
}

/** How a column is sorted: text by code point; NULLs first ascending and last descending everywhere. */
export function orderTerm(dialect: Dialect, type: FieldType, expression: SqlFragment, direction: 'asc' | 'desc'): SqlFragment {
  const sortable = type === 'String' ? binaryText(dialect, expression) : expression;
  const keyword = text(direction === 'asc' ? 'ASC' : 'DESC');
  const nulls = engines[dialect].nullsOrder(direction);
  return nulls === '' ? sql`${sortable} ${keyword}` : sql`${sortable} ${keyword} ${text(nulls)}`;
}

/** A column of the record table (alias `r`) or of a group table (alias `g`). */
export function column(alias: 'r' | 'g', name: string): SqlFragment {
  return identifier(`${alias}.${name}`);
}
