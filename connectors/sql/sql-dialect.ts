/**
 * The few places where SQLite, PostgreSQL and MariaDB/MySQL need different SQL to mean the same
 * thing as the JS evaluator: exact (binary, case- and trailing-space-sensitive) text comparison,
 * the text a value has for LIKE, JS's `trim`, and how values are bound. Everything else is
 * portable SQL built by the compiler. Each engine's module (engines/engine.ts lists them) holds
 * its own spelling; here is what the compiler builds from them.
 *
 * Assumed column types: DateTime fields are timestamp/timestamptz (PostgreSQL), DATETIME/TIMESTAMP
 * (MariaDB) or ISO 8601 text (SQLite); Date fields are DATE or `YYYY-MM-DD` text; Boolean fields
 * are boolean (PostgreSQL) or 0/1 integers. Sessions run in UTC (see engines/).
 */
import type { FieldType } from '../../definitions/types.js';
import type { Engine, EngineName } from './engines/index.js';
import { identifier, sql, text, type SqlFragment } from './sql-fragment.js';

export type Dialect = EngineName;

/**
 * Text of a value for LIKE and the string functions, as the JS evaluator's `textOf` sees the record
 * value. Exact for String, Integer, Date and DateTime; a Number is spelled by the database, which
 * may differ from JS for whole numbers kept as REAL or DECIMAL ('42.0', '42.00' against '42').
 */
export function textForm(engine: Engine, type: FieldType | undefined, expression: SqlFragment): SqlFragment | null {
  switch (type) {
    case 'String':
      return expression;
    case 'Boolean':
    case 'Json':
      // textOf(boolean) and textOf(object) have no text.
      return null;
    case 'Date':
      return engine.isoDateText(expression);
    case 'DateTime':
      return engine.isoDateTimeText(expression);
    default:
      return engine.castText(expression);
  }
}

/** How a column is sorted: text by code point; NULLs first ascending and last descending everywhere. */
export function orderTerm(engine: Engine, type: FieldType, expression: SqlFragment, direction: 'asc' | 'desc'): SqlFragment {
  const sortable = type === 'String' ? engine.binaryText(expression) : expression;
  const keyword = text(direction === 'asc' ? 'ASC' : 'DESC');
  const nulls = engine.nullsOrder(direction);
  return nulls === '' ? sql`${sortable} ${keyword}` : sql`${sortable} ${keyword} ${text(nulls)}`;
}

/** A column of the record table (alias `r`) or of a group table (alias `g`). */
export function column(alias: 'r' | 'g', name: string): SqlFragment {
  return identifier(`${alias}.${name}`);
}
