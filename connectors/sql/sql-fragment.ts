/**
 * Pieces of SQL as data: text with `??` (identifier) and `?` (value) placeholders, and the bindings
 * for them in order. The filter compiler, the keyset pager and the query runner build fragments and
 * hand them to Knex (`knex.raw`), which quotes identifiers and binds values — no value ever becomes
 * SQL text, except a row count the code worked out (rowCount). Identifiers bound here come from
 * validated definitions only.
 *
 * Fragment text written in this folder never contains a `?` other than a placeholder.
 */
import type { Knex } from 'knex';

export interface SqlFragment {
  readonly sql: string;
  readonly bindings: readonly unknown[];
}

/** Fixed SQL text without placeholders. */
export function text(sql: string): SqlFragment {
  return { sql, bindings: [] };
}

/** A bound value. */
export function value(bound: unknown): SqlFragment {
  return { sql: '?', bindings: [bound] };
}

/**
 * A row count of LIMIT or OFFSET, written as digits — the one number that becomes SQL text, and
 * only a whole number the code worked out (a page's size, the records read so far), never a
 * request's text: anything else throws. SQLite prepares a statement again at every run whose
 * LIMIT or OFFSET is bound (a bound count is a hint its planner takes), parsing the whole
 * statement each time: a third of the cost of reading an empty page, which a sync whose source
 * is empty (a scheduled run finding nothing new) pays at every run.
 */
export function rowCount(count: number): SqlFragment {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`a row count is a whole number of at least 0, not ${count}`);
  return { sql: String(count), bindings: [] };
}

/** A quoted identifier: `name`, `alias.column` or `schema.table` (Knex quotes each part). */
export function identifier(name: string): SqlFragment {
  return { sql: '??', bindings: [name] };
}

/**
 * A template of fixed text and fragments: sql`(${a} = ${b})`. Interpolate fragments only; a
 * value is interpolated through `value()`, so it is always bound.
 */
export function sql(strings: TemplateStringsArray, ...parts: SqlFragment[]): SqlFragment {
  let out = strings[0] ?? '';
  const bindings: unknown[] = [];
  parts.forEach((part, index) => {
    out += part.sql + (strings[index + 1] ?? '');
    bindings.push(...part.bindings);
  });
  return { sql: out, bindings };
}

export function join(parts: readonly SqlFragment[], separator: string): SqlFragment {
  return {
    sql: parts.map((part) => part.sql).join(separator),
    bindings: parts.flatMap((part) => part.bindings),
  };
}

/** Three constant truth values; `UNKNOWN` is SQL's NULL truth, so NOT UNKNOWN stays unknown. */
export const TRUE = text('(1 = 1)');
export const FALSE = text('(1 = 0)');
export const UNKNOWN = text('(NULL = 1)');

/** Unknown when `expression` is NULL, else false: what `x = <a value x never equals>` gives. */
export function falseUnlessNull(expression: SqlFragment): SqlFragment {
  return sql`(${expression} IS NULL AND NULL = 1)`;
}

/** Unknown when `expression` is NULL, else true. */
export function trueUnlessNull(expression: SqlFragment): SqlFragment {
  return sql`(${expression} IS NOT NULL OR NULL = 1)`;
}

export function and(parts: readonly SqlFragment[]): SqlFragment {
  if (parts.length === 0) return TRUE;
  if (parts.length === 1) return parts[0]!;
  return sql`(${join(parts, ' AND ')})`;
}

export function or(parts: readonly SqlFragment[]): SqlFragment {
  if (parts.length === 0) return FALSE;
  if (parts.length === 1) return parts[0]!;
  return sql`(${join(parts, ' OR ')})`;
}

export function not(part: SqlFragment): SqlFragment {
  return sql`(NOT ${part})`;
}

export function toRaw(knex: Knex, fragment: SqlFragment): Knex.Raw {
  return knex.raw(fragment.sql, fragment.bindings as Knex.RawBinding[]);
}

/**
 * The SQL text Knex makes of a statement without values (a column list, a quoted name), ready to
 * be reused in fragments: worked out once, it spares compiling the same builder on every read. A
 * `?` inside a quoted name is escaped, so Knex never takes it for a placeholder.
 */
export function fixedText(compiled: Knex.Sql): SqlFragment {
  if (compiled.bindings.length > 0) throw new Error('fixedText: the statement has bindings');
  return text(compiled.sql.replace(/\?/g, '\\?'));
}
