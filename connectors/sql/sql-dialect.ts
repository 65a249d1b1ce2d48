/**
 * The few places where SQLite, PostgreSQL and MariaDB/MySQL need different SQL to mean the same
 * thing as the JS evaluator: exact (binary, case- and trailing-space-sensitive) text comparison,
 * the text a value has for LIKE, JS's `trim`, and how values are bound. Everything else is
 * portable SQL built by the compiler.
 *
 * Assumed column types: DateTime fields are timestamp/timestamptz (PostgreSQL), DATETIME/TIMESTAMP
 * (MariaDB) or ISO 8601 text (SQLite); Date fields are DATE or `YYYY-MM-DD` text; Boolean fields
 * are boolean (PostgreSQL) or 0/1 integers. Sessions run in UTC (see knex-client.ts).
 */
import type { FieldType } from '../../definitions/types.js';
import { identifier, sql, text, value, type SqlFragment } from './sql-fragment.js';

export type Dialect = 'sqlite' | 'postgres' | 'mysql';

/** The connection setting `client` → Knex client and dialect. */
export function dialectOf(client: unknown): Dialect {
  switch (client) {
    case 'pg':
    case 'postgres':
    case 'postgresql':
      return 'postgres';
    case 'mysql':
    case 'mysql2':
    case 'mariadb':
      return 'mysql';
    default:
      return 'sqlite';
  }
}

export const DIALECT_LABELS: Readonly<Record<Dialect, string>> = {
  sqlite: 'SQLite',
  postgres: 'PostgreSQL',
  mysql: 'MariaDB/MySQL',
};

/** JS `String.prototype.trim` removes exactly these (WhiteSpace and LineTerminator). */
const JS_WHITESPACE =
  '\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

/** How a boolean is bound: PostgreSQL has a boolean type, the others store 1/0. */
export function booleanBinding(dialect: Dialect, flag: boolean): boolean | number {
  return dialect === 'postgres' ? flag : flag ? 1 : 0;
}

/** `expression` compared and ordered by code point, case- and trailing-space-sensitively. */
export function binaryText(dialect: Dialect, expression: SqlFragment): SqlFragment {
  switch (dialect) {
    case 'sqlite':
      return sql`(${expression} COLLATE BINARY)`;
    case 'postgres':
      return sql`(CAST(${expression} AS TEXT) COLLATE "C")`;
    case 'mysql':
      // BINARY comparison: no PAD SPACE, no case folding, UTF-8 byte order = code point order.
      return sql`CAST(CONVERT(${expression} USING utf8mb4) AS BINARY)`;
  }
}

/** A bound text value on the right-hand side of a `binaryText` comparison. */
export function binaryTextValue(dialect: Dialect, bound: string): SqlFragment {
  return dialect === 'mysql' ? sql`CAST(${value(bound)} AS BINARY)` : value(bound);
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
  return dialect === 'mysql' ? sql`CAST(${expression} AS CHAR)` : sql`CAST(${expression} AS TEXT)`;
}

export function castNumber(dialect: Dialect, expression: SqlFragment): SqlFragment {
  switch (dialect) {
    case 'sqlite':
      return sql`CAST(${expression} AS REAL)`;
    case 'postgres':
      return sql`CAST(${expression} AS DOUBLE PRECISION)`;
    case 'mysql':
      return sql`CAST(${expression} AS DOUBLE)`;
  }
}

/** `YYYY-MM-DD`, as Date fields are read. */
export function isoDateText(dialect: Dialect, expression: SqlFragment): SqlFragment {
  switch (dialect) {
    case 'sqlite':
      return sql`date(${expression})`;
    case 'postgres':
      return sql`to_char(${expression}, 'YYYY-MM-DD')`;
    case 'mysql':
      return sql`DATE_FORMAT(${expression}, '%Y-%m-%d')`;
  }
}

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` in UTC, as DateTime fields are read (JS `toISOString`). */
export function isoDateTimeText(dialect: Dialect, expression: SqlFragment): SqlFragment {
  switch (dialect) {
    case 'sqlite':
      return sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${expression})`;
    case 'postgres':
      return sql`to_char(${expression}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    case 'mysql':
      return sql`CONCAT(DATE_FORMAT(${expression}, '%Y-%m-%dT%H:%i:%s.'), LPAD(FLOOR(MICROSECOND(${expression}) / 1000), 3, '0'), 'Z')`;
  }
}

/** A Date field compared with a `YYYY-MM-DD` value. */
export function dateOperands(dialect: Dialect, expression: SqlFragment, day: string): [SqlFragment, SqlFragment] {
  if (dialect === 'sqlite') return [sql`date(${expression})`, value(day)];
  return [expression, sql`CAST(${value(day)} AS DATE)`];
}

/** A DateTime field compared with an instant. */
export function dateTimeOperands(dialect: Dialect, expression: SqlFragment, instant: Date): [SqlFragment, SqlFragment] {
  const iso = instant.toISOString();
  switch (dialect) {
    case 'sqlite':
      return [isoDateTimeText(dialect, expression), value(iso)];
    case 'postgres':
      return [expression, sql`CAST(${value(iso)} AS TIMESTAMPTZ)`];
    case 'mysql':
      return [expression, value(mysqlDateTime(instant))];
  }
}

/** `YYYY-MM-DD HH:MM:SS.mmm` in UTC: how MariaDB/MySQL take a DATETIME value. */
export function mysqlDateTime(instant: Date): string {
  return instant.toISOString().replace('T', ' ').replace('Z', '');
}

/** JS `trim()`: the same set of whitespace characters, bound as data. */
export function jsTrim(dialect: Dialect, expression: SqlFragment): SqlFragment {
  switch (dialect) {
    case 'sqlite':
      return sql`trim(${expression}, ${value(JS_WHITESPACE)})`;
    case 'postgres':
      return sql`btrim(${expression}, ${value(JS_WHITESPACE)})`;
    case 'mysql': {
      const run = `[${JS_WHITESPACE}]+`;
      return sql`REGEXP_REPLACE(${expression}, ${value(`^${run}|${run}$`)}, '')`;
    }
  }
}

export function charLength(dialect: Dialect, expression: SqlFragment): SqlFragment {
  return dialect === 'sqlite' ? sql`length(${expression})` : sql`CHAR_LENGTH(${expression})`;
}

/** How a column is sorted: text by code point; NULLs first ascending and last descending everywhere. */
export function orderTerm(dialect: Dialect, type: FieldType, expression: SqlFragment, direction: 'asc' | 'desc'): SqlFragment {
  const sortable = type === 'String' ? binaryText(dialect, expression) : expression;
  const keyword = text(direction === 'asc' ? 'ASC' : 'DESC');
  if (dialect !== 'postgres') return sql`${sortable} ${keyword}`;
  return sql`${sortable} ${keyword} ${text(direction === 'asc' ? 'NULLS FIRST' : 'NULLS LAST')}`;
}

/** A column of the record table (alias `r`) or of a group table (alias `g`). */
export function column(alias: 'r' | 'g', name: string): SqlFragment {
  return identifier(`${alias}.${name}`);
}
