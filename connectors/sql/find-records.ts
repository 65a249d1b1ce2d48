/**
 * The lookup of many writes at once: the records each one's match finds, with one SELECT per chunk
 * of writes that match on the same fields, instead of one per write.
 *
 * A chunk's condition is built from the same pieces as a single write's (compare-column.ts through
 * `fieldColumn`), so typing and case rules are the same: `(k IN (…))` for one field (`equalsAny`,
 * plus `k IS NULL` when a write matches on null), an OR of each write's own condition for several.
 * The rows come back with their match columns, and `matchesValue` — the JS side of those same
 * comparisons — tells which write each row belongs to. Chunks hold at most `MAX_BINDINGS` bound
 * values, within every engine's limits and small enough for the planner to use the index.
 */
import type { Knex } from 'knex';
import type { RecordData } from '../connection.js';
import { equalsAny } from './compare-column.js';
import { equalityKey, matchesValue } from './match-values.js';
import type { PreparedWrite, Row } from './prepare-write.js';
import { fieldColumn, readFields, type ObjectScope } from './record-query.js';
import { or, sql, toRaw, type SqlFragment } from './sql-fragment.js';
import { decodeValue } from '../records/field-values.js';
import { lookupColumns, mayLeaveUnchanged, rowKey } from './unchanged-row.js';

/** A sync page of 1000 matching on one field is one SELECT. */
const MAX_BINDINGS = 1000;

interface Lookup {
  /** Position of the write in the list given to `findRecords`. */
  position: number;
  match: Readonly<RecordData>;
  /** Its condition is built only when a chunk of several fields needs it. */
  write: PreparedWrite;
}

/** Writes that match on the same fields, in chunks of at most MAX_BINDINGS bindings. */
function chunksOf(writes: ReadonlyArray<PreparedWrite | undefined>): Array<{ fields: string[]; lookups: Lookup[] }> {
  type Chunk = { fields: string[]; lookups: Lookup[]; bindings: number };
  const open = new Map<string, Chunk>();
  const chunks: Chunk[] = [];
  writes.forEach((write, position) => {
    // A write with a match has a condition (prepare-write.ts).
    if (write?.match === undefined) return;
    const fields = Object.keys(write.match).sort();
    const set = fields.join('\u0000');
    // One field is searched as `IN (…)` (chunkCondition), one bound value per write; several as
    // an OR of each write's own condition, with its bindings.
    const bindings = fields.length === 1 ? 1 : write.condition!.bindings.length;
    let chunk = open.get(set);
    if (chunk === undefined || chunk.bindings + bindings > MAX_BINDINGS) {
      chunk = { fields, lookups: [], bindings: 0 };
      open.set(set, chunk);
      chunks.push(chunk);
    }
    chunk.lookups.push({ position, match: write.match, write });
    chunk.bindings += bindings;
  });
  return chunks;
}

function chunkCondition(scope: ObjectScope, fields: readonly string[], lookups: readonly Lookup[]): SqlFragment {
  const [only, ...more] = fields;
  if (only === undefined || more.length > 0) return or(lookups.map((lookup) => lookup.write.condition!));
  const column = fieldColumn(scope, [only]);
  const constants = lookups.map((lookup) => lookup.match[only]).filter((constant) => constant !== null && constant !== undefined);
  const nulls = constants.length < lookups.length ? [sql`(${column.sql} IS NULL)`] : [];
  return or([...(constants.length > 0 ? [equalsAny(scope.engine, column, constants)] : []), ...nulls]);
}

/**
 * The key columns of the records each write finds, by position (`[]` for a write that is undefined
 * or identifies nothing); every declared column for a write that may be left unchanged
 * (unchanged-row.ts). Unlike a single write's lookup, all the records found are given, not two.
 */
export async function findRecords(
  trx: Knex.Transaction,
  scope: ObjectScope,
  writes: ReadonlyArray<PreparedWrite | undefined>,
): Promise<Row[][]> {
  const { object } = scope;
  const found: Row[][] = writes.map(() => []);
  for (const { fields, lookups } of chunksOf(writes)) {
    const types = fields.map((name) => object.fields.get(name)!.type);
    const columns = lookupColumns(
      object,
      fields,
      lookups.some((lookup) => mayLeaveUnchanged(lookup.write)),
    );
    const rows = (await trx
      .from({ r: object.table })
      .select(toRaw(trx, readFields(scope, 'r', columns)))
      .where(toRaw(trx, chunkCondition(scope, fields, lookups)))) as Row[];
    // Requests indexed by their values' equality keys; the rest are compared with every row.
    const keyed = new Map<string, Lookup[]>();
    const unkeyed: Lookup[] = [];
    for (const lookup of lookups) {
      const key = compositeKey(fields.map((name, index) => equalityKey(types[index]!, lookup.match[name])));
      if (key === undefined) unkeyed.push(lookup);
      else keyed.set(key, [...(keyed.get(key) ?? []), lookup]);
    }
    for (const row of rows) {
      const stored = fields.map((name, index) => decodeValue(types[index], row[name]));
      const key = compositeKey(fields.map((_, index) => equalityKey(types[index]!, stored[index])));
      const candidates = key === undefined ? lookups : [...(keyed.get(key) ?? []), ...unkeyed];
      const rawKey = rowKey(object, row);
      for (const lookup of candidates) {
        if (fields.every((name, index) => matchesValue(stored[index], lookup.match[name])))
          found[lookup.position]!.push(mayLeaveUnchanged(lookup.write) ? row : rawKey);
      }
    }
  }
  return found;
}

function compositeKey(parts: ReadonlyArray<string | undefined>): string | undefined {
  if (parts.length === 1) return parts[0];
  return parts.some((part) => part === undefined) ? undefined : JSON.stringify(parts);
}
