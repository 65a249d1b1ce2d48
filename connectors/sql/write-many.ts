/**
 * Many writes of one object in one transaction, each meaning exactly what `write` means (the
 * checks of prepare-write.ts, the create/update/skip decision, groups upserted per record, the
 * lookup and create atomic per match key as write-transaction.ts makes them), but with far fewer
 * statements:
 *
 * - The records are looked up a window at a time (find-records.ts: one SELECT per chunk). The
 *   match locks of the whole batch, if any, are taken once, before the first window. A write
 *   under `leaveUnchanged` whose record already holds its values is answered `unchanged` there,
 *   and not made (unchanged-row.ts).
 * - Runs of plain writes (no group entries; creates with their whole key) go in chunks, each in a
 *   savepoint: consecutive creates with the same columns (and the same unique arbiter) as
 *   multi-row INSERTs, updates one UPDATE each by the key found. When a chunk fails, it is rolled
 *   back to its savepoint and redone record by record, each in a savepoint of its own, so only the
 *   culprits fail — PostgreSQL would otherwise refuse everything after the first error, and a
 *   record is never half written. A chunk whose INSERT met records created since the lookup (its
 *   conflict clause inserted fewer rows) is redone the same way, each such record then stored as
 *   the match it has become.
 * - Writes with group entries, or creates whose key the database generates (RETURNING or the insert
 *   id tells which, one row at a time), are stored alone in a savepoint, as `write` stores them.
 *
 * Statements run in request order. A write whose lookup could be changed by an earlier write of the
 * batch — it may find what that one writes (`independentRun`), or both find the same record
 * (`firstSharedRecord`) — starts a new window, looked up after the earlier ones are stored, so a
 * batch gives what the same writes one after the other would.
 *
 * A failure the connector cannot pin on one record — the system unreachable, an unclassified
 * database error — rolls the whole batch back and rejects it. A deadlock rolls it back and the
 * whole batch is run again (write-transaction.ts).
 */
import type { Knex } from 'knex';
import type { WriteRequest, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { insertUnlessConflict } from './conflict-insert.js';
import { isTransientConflict, toConnectorError } from './database-errors.js';
import { findRecords } from './find-records.js';
import { keyString } from './group-entries.js';
import { equalityKey, matchesValue } from './match-values.js';
import {
  ambiguousMatch,
  createRow,
  leavesKeyToDatabase,
  prepareWrite,
  writeResult,
  type PreparedWrite,
  type Row,
} from './prepare-write.js';
import type { ObjectScope } from './record-query.js';
import { decodeValue } from '../records/field-values.js';
import { encodeValue } from './value-codec.js';
import { hasGroupEntries } from '../records/write-checks.js';
import { holdsValues, mayLeaveUnchanged, rowKey } from './unchanged-row.js';
import { storeMatched, storeRecord } from './write.js';
import type { TableFacts } from './unique-keys.js';
import { guardWrites, writeTransaction, type WriteGuard, type WriteScope } from './write-transaction.js';

export type WriteAnswer = WriteResult | ConnectorError;

/** Writes looked up together; the rest of a batch is looked up after these are stored. */
const WINDOW = 1000;
/**
 * Plain writes per savepoint: a failing chunk is redone record by record, so not too many; a sync
 * page of 1000 in one, which PostgreSQL and MariaDB write in one multi-row statement (insertRows).
 */
const CHUNK = 1000;
/**
 * Rows per multi-row INSERT or UPDATE: Knex writes SQLite's INSERT as a compound SELECT, limited to
 * 500 terms (and batchUpdateStatement's VALUES stays as small); the others take a whole chunk.
 */
function insertRows(scope: ObjectScope): number {
  return scope.engine.name === 'sqlite' ? 500 : CHUNK;
}
/** Bound values per INSERT, well within SQLite's (32,766), PostgreSQL's (65,535) and MariaDB's limits. */
const INSERT_BINDINGS = 10_000;

type Operation =
  | { kind: 'insert'; position: number; prepared: PreparedWrite; row: Row; guard: WriteGuard }
  | { kind: 'update'; position: number; prepared: PreparedWrite; rawKey: Row }
  /** Stored as `write` stores it: group entries, or a generated key. */
  | { kind: 'alone'; position: number; prepared: PreparedWrite; found: readonly Row[]; guard: WriteGuard };

type PlainOperation = Exclude<Operation, { kind: 'alone' }>;

/** A multi-row INSERT met records created since the lookup: its chunk is redone record by record. */
class ChunkConflict extends Error {}

export async function writeMany(scope: WriteScope, requests: readonly WriteRequest[]): Promise<WriteAnswer[]> {
  const { object } = scope;
  const refused: Array<WriteAnswer | undefined> = new Array(requests.length);
  const context = { systemId: object.systemId, action: `writing ${object.name}` };
  const answerErrorIn =
    (answers: Array<WriteAnswer | undefined>) =>
    (position: number, error: unknown): void => {
      const failure = toConnectorError(error, context);
      if (!(failure instanceof ConnectorError) || failure.code === 'unavailable') throw failure;
      answers[position] = failure;
    };
  const prepared = requests.map((request, position) => {
    try {
      return prepareWrite(scope, request);
    } catch (error) {
      answerErrorIn(refused)(position, error);
      return undefined;
    }
  });
  if (prepared.every((write) => write === undefined)) return refused as WriteAnswer[];
  try {
    const { guards, ...locks } = await guardWrites(scope, prepared, true);
    // Updates need a match; the table's facts are read once per connection (unique-keys.ts).
    const facts =
      scope.tables !== undefined && prepared.some((write) => write?.match !== undefined) ? await scope.tables.get(object.table) : undefined;
    const batchable = updateBatchable(scope, facts);
    // A deadlock runs the transaction again: each attempt answers from scratch.
    return await writeTransaction(scope, { guards, ...locks }, async (trx) => {
      const answers = [...refused];
      const answerError = answerErrorIn(answers);
      for (let start = 0; start < prepared.length; ) {
        const window = prepared.slice(start, independentRun(scope, prepared, start, Math.min(prepared.length, start + WINDOW)));
        const found = await findRecords(trx, scope, window);
        const end = start + firstSharedRecord(scope, found);
        const operations: Operation[] = [];
        for (let position = start; position < end; position += 1) {
          const write = prepared[position];
          const rows = found[position - start]!;
          const guard = guards[position]!;
          if (write === undefined) continue;
          if (rows.length > 1) answers[position] = ambiguousMatch(object, write);
          else if (rows.length === 1 && write.request.onMatch === 'skip')
            answers[position] = writeResult(object, 'skipped', { ...rows[0] });
          else if (hasGroupEntries(write.request)) operations.push({ kind: 'alone', position, prepared: write, found: rows, guard });
          else if (rows.length === 1 && mayLeaveUnchanged(write) && holdsValues(object, rows[0]!, write))
            answers[position] = writeResult(object, 'unchanged', rows[0]!);
          else if (rows.length === 1) operations.push({ kind: 'update', position, prepared: write, rawKey: rowKey(object, rows[0]!) });
          else {
            try {
              const row = createRow(scope, write);
              operations.push(
                leavesKeyToDatabase(object, row)
                  ? { kind: 'alone', position, prepared: write, found: rows, guard }
                  : { kind: 'insert', position, prepared: write, row, guard },
              );
            } catch (error) {
              answerError(position, error);
            }
          }
        }
        await storeOperations(trx, scope, operations, answers, answerError, batchable);
        start = end;
      }
      return answers as WriteAnswer[];
    });
  } catch (error) {
    throw toConnectorError(error, context);
  }
}

/** Stores the operations in order: plain ones in chunks, the others alone. */
async function storeOperations(
  trx: Knex.Transaction,
  scope: ObjectScope,
  operations: readonly Operation[],
  answers: Array<WriteAnswer | undefined>,
  answerError: (position: number, error: unknown) => void,
  batchable: Batchable | undefined,
): Promise<void> {
  let chunk: PlainOperation[] = [];
  const flush = async (): Promise<void> => {
    if (chunk.length === 0) return;
    const plain = chunk;
    chunk = [];
    try {
      const results = await trx.transaction((savepoint) => storePlain(savepoint, scope, plain, batchable));
      for (const [index, operation] of plain.entries()) answers[operation.position] = results[index];
    } catch (error) {
      // A deadlock rolled back more than the savepoint: the whole batch runs again.
      if (isTransientConflict(error)) throw error;
      if (plain.length === 1) return answerError(plain[0]!.position, error);
      if (!(error instanceof ChunkConflict)) {
        const failure = toConnectorError(error, { systemId: scope.object.systemId, action: `writing ${scope.object.name}` });
        if (failure instanceof ConnectorError && failure.code === 'unavailable') throw failure;
      }
      for (const operation of plain) {
        try {
          answers[operation.position] = (await trx.transaction((savepoint) => storePlain(savepoint, scope, [operation], batchable)))[0];
        } catch (single) {
          if (isTransientConflict(single)) throw single;
          answerError(operation.position, single);
        }
      }
    }
  };
  for (const operation of operations) {
    if (operation.kind !== 'alone') {
      chunk.push(operation);
      if (chunk.length >= CHUNK) await flush();
      continue;
    }
    await flush();
    try {
      answers[operation.position] = await trx.transaction((savepoint) =>
        storeRecord(savepoint, scope, operation.prepared, operation.found, operation.guard),
      );
    } catch (error) {
      if (isTransientConflict(error)) throw error;
      answerError(operation.position, error);
    }
  }
  await flush();
}

/** The columns a create's conflict clause names, as text ('' for a plain INSERT). */
function arbiterOf(operation: Extract<PlainOperation, { kind: 'insert' }>): string {
  return operation.guard.kind === 'unique' ? operation.guard.columns.join('\u0000') : '';
}

/** Plain operations in order; consecutive creates with the same columns (and arbiter) as one INSERT. */
async function storePlain(
  trx: Knex.Transaction,
  scope: ObjectScope,
  operations: readonly PlainOperation[],
  batchable: Batchable | undefined,
): Promise<WriteResult[]> {
  const { object } = scope;
  const results: WriteResult[] = [];
  for (let index = 0; index < operations.length; ) {
    const operation = operations[index]!;
    if (operation.kind === 'update' && batchable !== undefined) {
      const batch = updateBatch(object.key, operations, index, batchable, insertRows(scope));
      if (batch.length > 1) {
        await trx.raw(
          ...(scope.engine.name === 'sqlite'
            ? batchUpdateStatement(object.table, object.key, batch)
            : jsonBatchUpdateStatement(object.table, object.key, batch)),
        );
        for (const update of batch) results.push(writeResult(object, 'updated', { ...update.rawKey }));
        index += batch.length;
        continue;
      }
    }
    if (operation.kind === 'update') {
      const { settable } = operation.prepared;
      if (Object.keys(settable).length > 0) await trx.raw(...updateStatement(object.table, settable, operation.rawKey));
      const rawKey = { ...operation.rawKey };
      for (const name of object.key) if (Object.hasOwn(settable, name)) rawKey[name] = settable[name];
      results.push(writeResult(object, 'updated', rawKey));
      index += 1;
      continue;
    }
    // Knex gives a column missing from some rows of a multi-row INSERT NULL (SQLite) or DEFAULT,
    // where a single write would leave it to the column's default: only equal column sets share one.
    const columns = operation.row;
    const arbiter = arbiterOf(operation);
    const limit = Math.max(1, Math.min(insertRows(scope), Math.floor(INSERT_BINDINGS / Math.max(1, Object.keys(operation.row).length))));
    const inserts: Array<Extract<PlainOperation, { kind: 'insert' }>> = [];
    while (index < operations.length && inserts.length < limit) {
      const next = operations[index]!;
      if (next.kind !== 'insert' || !sameColumns(next.row, columns) || arbiterOf(next) !== arbiter) break;
      inserts.push(next);
      index += 1;
    }
    const rows = inserts.map((insert) => insert.row);
    if (operation.guard.kind !== 'unique') {
      const statement = insertStatement(object.table, rows);
      await (statement === undefined ? trx(object.table).insert(rows) : trx.raw(...statement));
    } else if ((await insertUnlessConflict(trx, scope, rows, operation.guard.columns, false)).inserted < rows.length) {
      if (rows.length > 1) throw new ChunkConflict(`${object.name}: records were created since the lookup`);
      // The one record was created by another writer since the lookup: it is this write's match now.
      results.push(await storeMatched(trx, scope, operation.prepared));
      continue;
    }
    for (const row of rows) results.push(writeResult(object, 'created', row));
  }
  return results;
}

/**
 * `INSERT INTO table (c, …) VALUES (?, …), (?, …)` for rows with the same columns (storePlain
 * groups them so), as Knex's builder inserts them but without its cost per row (on SQLite it
 * writes a compound SELECT, quoting every column of every row). Undefined when a value is
 * undefined: the builder gives that one the column's DEFAULT (or NULL), and inserts them.
 */
function insertStatement(table: string, rows: readonly Row[]): [string, Knex.RawBinding[]] | undefined {
  const columns = Object.keys(rows[0]!);
  const bindings: unknown[] = [table, ...columns];
  for (const row of rows) {
    for (const name of columns) {
      const value = row[name];
      if (value === undefined) return undefined;
      bindings.push(value);
    }
  }
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  return [
    `INSERT INTO ?? (${columns.map(() => '??').join(', ')}) VALUES ${rows.map(() => tuple).join(', ')}`,
    bindings as Knex.RawBinding[],
  ];
}

/**
 * `UPDATE table SET … WHERE key = …` as Knex's builder makes it (`where(rawKey).update(settable)`),
 * written through `knex.raw` because the builder's own cost is a third of a SQLite update's.
 */
function updateStatement(table: string, settable: Row, rawKey: Row): [string, Knex.RawBinding[]] {
  const bindings: unknown[] = [table];
  const sets: string[] = [];
  for (const [name, value] of Object.entries(settable)) {
    sets.push('?? = ?');
    bindings.push(name, value);
  }
  const conditions: string[] = [];
  for (const [name, value] of Object.entries(rawKey)) {
    conditions.push(value === null || value === undefined ? '?? IS NULL' : '?? = ?');
    bindings.push(name);
    if (value !== null && value !== undefined) bindings.push(value);
  }
  return [`UPDATE ?? SET ${sets.join(', ')} WHERE ${conditions.join(' AND ')}`, bindings as Knex.RawBinding[]];
}

type UpdateOperation = Extract<PlainOperation, { kind: 'update' }>;

/**
 * Whether one update may join a multi-row UPDATE on this engine, or undefined where the engine
 * makes its updates one by one (MariaDB: one UPDATE a row).
 *
 * - SQLite: any (batchUpdateStatement binds the values as a single UPDATE would).
 * - PostgreSQL: the rows travel as one JSON array read back through the table's own row type
 *   (jsonBatchUpdateStatement), so each value reaches its column through the column type's text
 *   input, as a bound parameter does — true for text, numbers and booleans into columns of a
 *   text, number, boolean or date/time base type (the catalog's `scalarColumns`). Not into a json
 *   column (a JSON string would stay a string, where a bound one is parsed), an array, a domain;
 *   nor a value that is not such a scalar (a Buffer, a Date), nor a key read back as one: those
 *   updates are made one by one.
 */
type Batchable = (update: UpdateOperation) => boolean;

function updateBatchable(scope: ObjectScope, facts: TableFacts | undefined): Batchable | undefined {
  const { engine, object } = scope;
  if (engine.name === 'sqlite') return () => true;
  const columns = facts?.scalarColumns;
  if (engine.name !== 'postgres' || columns === undefined) return undefined;
  const scalar = (name: string, value: unknown): boolean =>
    columns.has(name) &&
    object.fields.get(name)?.type !== 'Json' &&
    (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)));
  return (update) => {
    for (const [name, value] of Object.entries(update.prepared.settable)) if (!scalar(name, value)) return false;
    return object.key.every((name) => scalar(name, update.rawKey[name]));
  };
}

/**
 * Consecutive updates from `start` that one statement can make: the same settable columns, key
 * columns among them only with the value the record already has (a mapping that writes the key
 * it matched on), a key without nulls, something else to set, and each `batchable` on this
 * engine; at most `rows`, and as many as the bindings allow.
 */
function updateBatch(
  key: readonly string[],
  operations: readonly PlainOperation[],
  start: number,
  batchable: Batchable,
  rows: number,
): UpdateOperation[] {
  const first = operations[start] as UpdateOperation;
  const columns = first.prepared.settable;
  const width = key.length + Object.keys(first.prepared.settable).length;
  const limit = Math.max(1, Math.min(rows, Math.floor(INSERT_BINDINGS / width)));
  const batch: UpdateOperation[] = [];
  for (let index = start; index < operations.length && batch.length < limit; index += 1) {
    const next = operations[index]!;
    if (next.kind !== 'update' || !sameColumns(next.prepared.settable, columns)) break;
    const settable = next.prepared.settable;
    if (
      key.some(
        (name) =>
          next.rawKey[name] === null ||
          next.rawKey[name] === undefined ||
          (Object.hasOwn(settable, name) && String(settable[name]) !== String(next.rawKey[name])),
      )
    )
      break;
    if (Object.keys(settable).every((name) => key.includes(name))) break;
    if (!batchable(next)) break;
    batch.push(next);
  }
  return batch;
}

/**
 * SQLite: many updates in one statement, each row's new values joined in by its key —
 *   UPDATE t SET c = v.column2, … FROM (VALUES (?, ?, …), …) AS v WHERE t.k = v.column1 AND …
 * The keys were just read from the table inside this transaction (SQLite's write lock is held),
 * so every row is there; a failing statement is redone record by record by the caller.
 */
function batchUpdateStatement(table: string, key: readonly string[], batch: readonly UpdateOperation[]): [string, Knex.RawBinding[]] {
  const settable = Object.keys(batch[0]!.prepared.settable).filter((name) => !key.includes(name));
  const bindings: unknown[] = [table];
  const sets = settable.map((name, index) => {
    bindings.push(name);
    return `?? = v.column${key.length + index + 1}`;
  });
  const placeholders = `(${[...key, ...settable].map(() => '?').join(', ')})`;
  for (const update of batch) {
    for (const name of key) bindings.push(update.rawKey[name]);
    for (const name of settable) bindings.push(update.prepared.settable[name]);
  }
  const conditions = key.map((name, index) => {
    bindings.push(table, name);
    return `??.?? = v.column${index + 1}`;
  });
  return [
    `UPDATE ?? SET ${sets.join(', ')} FROM (VALUES ${batch.map(() => placeholders).join(', ')}) AS v WHERE ${conditions.join(' AND ')}`,
    bindings as Knex.RawBinding[],
  ];
}

/**
 * PostgreSQL: many updates in one statement, the rows bound as one JSON array and read back as
 * the table's own rows, so each value takes its column's type —
 *   UPDATE t SET c = v.c, … FROM json_populate_recordset(NULL::t, ?) AS v WHERE t.k = v.k AND …
 * The keys were just read inside this transaction; a row deleted since by another writer is left
 * out, as the single UPDATE leaves it. Only updates `updateBatchable` accepts come here.
 */
function jsonBatchUpdateStatement(table: string, key: readonly string[], batch: readonly UpdateOperation[]): [string, Knex.RawBinding[]] {
  const settable = Object.keys(batch[0]!.prepared.settable).filter((name) => !key.includes(name));
  const bindings: unknown[] = [table];
  const sets = settable.map((name) => {
    bindings.push(name, name);
    return '?? = v.??';
  });
  const rows = batch.map((update) => {
    const row: Row = {};
    for (const name of key) row[name] = update.rawKey[name];
    for (const name of settable) row[name] = update.prepared.settable[name];
    return row;
  });
  bindings.push(table, JSON.stringify(rows));
  const conditions = key.map((name) => {
    bindings.push(table, name, name);
    return '??.?? = v.??';
  });
  return [
    `UPDATE ?? SET ${sets.join(', ')} FROM json_populate_recordset(NULL::??, ?) AS v WHERE ${conditions.join(' AND ')}`,
    bindings as Knex.RawBinding[],
  ];
}

/** Whether two rows have the same columns, in whatever order. */
function sameColumns(row: Row, other: Row): boolean {
  let count = 0;
  for (const name in row) {
    if (!Object.hasOwn(other, name)) return false;
    count += 1;
  }
  return count === Object.keys(other).length;
}

/**
 * The end of the run of writes from `start` (at most `limit`) none of which may find what an
 * earlier one of the run writes: a write ends the run when an earlier one sets its match fields to
 * values it matches (or may, leaving some of them to the database). What a write sets is taken as
 * if it created the record — its values and its match values — which covers updates as well.
 */
function independentRun(scope: ObjectScope, prepared: ReadonlyArray<PreparedWrite | undefined>, start: number, limit: number): number {
  const { object } = scope;
  const matchFields = new Set<string>();
  for (let position = start; position < limit; position += 1)
    for (const name of Object.keys(prepared[position]?.match ?? {})) matchFields.add(name);
  if (matchFields.size === 0) return limit;
  // What each earlier write of the run sets, as read back, for the fields any write matches on.
  const written = new Map<number, Map<string, unknown>>();
  const byKey = new Map<string, Map<string, number[]>>();
  const unkeyed = new Map<string, number[]>();
  const setting = new Map<string, number[]>();
  const lacking = new Map<string, number[]>();
  const push = <K>(map: Map<K, number[]>, key: K, position: number): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [position]);
    else list.push(position);
  };
  for (let position = start; position < limit; position += 1) {
    const write = prepared[position];
    if (write === undefined) continue;
    if (write.match !== undefined && position > start) {
      const match = write.match;
      const candidates = new Set<number>();
      for (const [name, constant] of Object.entries(match)) {
        const key = equalityKey(object.fields.get(name)!.type, constant);
        for (const list of [key === undefined ? setting.get(name) : byKey.get(name)?.get(key), unkeyed.get(name), lacking.get(name)]) {
          for (const earlier of list ?? []) candidates.add(earlier);
        }
      }
      for (const earlier of candidates) {
        const values = written.get(earlier)!;
        const differs = Object.entries(match).some(([name, constant]) => values.has(name) && !matchesValue(values.get(name), constant));
        if (!differs) return position;
      }
    }
    const values = new Map<string, unknown>();
    for (const name of matchFields) {
      const field = object.fields.get(name)!;
      let encoded: unknown;
      if (Object.hasOwn(write.settable, name)) encoded = write.settable[name];
      else if (write.match !== undefined && Object.hasOwn(write.match, name)) {
        try {
          encoded = encodeValue(field.type, write.match[name], { engine: scope.engine, label: name });
        } catch {
          // Such a create is refused, and an update leaves the value as it was: unknown here.
          push(lacking, name, position);
          continue;
        }
      } else {
        push(lacking, name, position);
        continue;
      }
      const stored = decodeValue(field.type, encoded);
      values.set(name, stored);
      push(setting, name, position);
      const key = equalityKey(field.type, stored);
      if (key === undefined) push(unkeyed, name, position);
      else {
        const byValue = byKey.get(name) ?? new Map<string, number[]>();
        byKey.set(name, byValue);
        push(byValue, key, position);
      }
    }
    written.set(position, values);
  }
  return limit;
}

/**
 * How many writes of a window come before the first one that found a record an earlier one of the
 * window writes: that one is looked up again once the earlier ones are stored.
 */
function firstSharedRecord(scope: ObjectScope, found: ReadonlyArray<readonly Row[]>): number {
  const { key } = scope.object;
  const touched = new Set<string>();
  for (let index = 0; index < found.length; index += 1) {
    const records = found[index]!.map((row) => key.map((name) => keyString(row[name])).join('\u0000'));
    if (records.some((record) => touched.has(record))) return index;
    // A write that finds several records is refused, so it touches none of them.
    if (records.length === 1) touched.add(records[0]!);
  }
  return found.length;
}
