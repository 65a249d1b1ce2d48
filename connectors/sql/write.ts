/**
 * Creating or updating one record and its group entries in one transaction.
 *
 * The record is looked up by `match` when given, else by the object's key when `values` hold all
 * of it; one record found → updated (or left as it is: `onMatch: 'skip'`, or `leaveUnchanged` and
 * it already holds the values), none → created (match values fill in fields the values lack),
 * several → refused. Each group entry is then upserted by (foreign key, type). The lookup and the create are atomic per match key (write-transaction.ts):
 * a concurrent writer of the same record makes this one find it, not create it again. What is
 * checked before the database is asked (types, unknown and read-only fields) is in
 * prepare-write.ts, which `writeMany` shares; `storeRecord` is the part after the lookup, which it
 * shares too.
 */
import type { Knex } from 'knex';
import type { WriteRequest, WriteResult } from '../connection.js';
import { toConnectorError } from './database-errors.js';
import { groupParentKey, type SqlGroup } from './object-model.js';
import { insertUnlessConflict } from './conflict-insert.js';
import { ambiguousMatch, createRow, encodeGroupEntry, prepareWrite, writeResult, type PreparedWrite, type Row } from './prepare-write.js';
import { readFields, type ObjectScope } from './record-query.js';
import { identifier, toRaw } from './sql-fragment.js';
import { holdsValues, lookupColumns, mayLeaveUnchanged, rowKey } from './unchanged-row.js';
import { guardWrites, NO_GUARD, writeTransaction, type WriteGuard, type WriteScope } from './write-transaction.js';

async function upsertGroupEntry(
  trx: Knex.Transaction,
  scope: ObjectScope,
  group: SqlGroup,
  parentKey: unknown,
  type: string,
  entry: unknown,
): Promise<void> {
  const values = encodeGroupEntry(scope, group, type, entry);
  const identity = { [group.foreignKey]: parentKey, [group.typeField]: type };
  const existing = await trx(group.table).select(trx.raw('1 AS found')).where(identity).first();
  if (existing !== undefined) {
    if (Object.keys(values).length > 0) await trx(group.table).where(identity).update(values);
  } else {
    await trx(group.table).insert({ ...values, ...identity });
  }
}

/**
 * The key columns of the records the prepared write finds (at most two: one more means ambiguous);
 * every declared column when the write may be left unchanged (unchanged-row.ts).
 */
export async function findRecord(trx: Knex.Transaction, scope: ObjectScope, prepared: PreparedWrite): Promise<Row[]> {
  const { object } = scope;
  if (prepared.condition === undefined) return [];
  return (await trx
    .from({ r: object.table })
    .select(toRaw(trx, readFields(scope, 'r', lookupColumns(object, [], mayLeaveUnchanged(prepared)))))
    .where(toRaw(trx, prepared.condition))
    .limit(2)) as Row[];
}

/**
 * The key columns an INSERT … RETURNING answers, each read as the engine reads it exactly (on
 * SQLite a generated id past 2^53 as its text: rounded, the record's group entries went under its
 * neighbour's key).
 */
function keyColumns(trx: Knex.Transaction, scope: ObjectScope): Knex.Raw[] {
  const { engine, object } = scope;
  return object.key.map((name) =>
    toRaw(trx, engine.readColumn(identifier(name), identifier(name), object.fields.get(name)?.type ?? 'String')),
  );
}

/**
 * Stores a prepared write inside `trx`, given the records its lookup found: updates the one found
 * (or leaves it, `onMatch: 'skip'`) or creates one, then upserts the group entries. A create that
 * meets a record created since the lookup (its unique `guard`) stores the write as a match of it.
 */
export async function storeRecord(
  trx: Knex.Transaction,
  scope: ObjectScope,
  prepared: PreparedWrite,
  found: readonly Row[],
  guard: WriteGuard = NO_GUARD,
): Promise<WriteResult> {
  const { object } = scope;
  const { request, settable } = prepared;
  if (found.length > 1) throw ambiguousMatch(object, prepared);
  let action: WriteResult['action'];
  let rawKey: Row;
  if (found.length === 1) {
    if (mayLeaveUnchanged(prepared) && holdsValues(object, found[0]!, prepared)) return writeResult(object, 'unchanged', found[0]!);
    rawKey = rowKey(object, found[0]!);
    if (request.onMatch === 'skip') return writeResult(object, 'skipped', rawKey);
    action = 'updated';
    if (Object.keys(settable).length > 0) await trx(object.table).where(rawKey).update(settable);
    for (const name of object.key) if (Object.hasOwn(settable, name)) rawKey[name] = settable[name];
  } else {
    const inserted = await insertRecord(trx, scope, createRow(scope, prepared), guard);
    if (inserted === undefined) return storeMatched(trx, scope, prepared);
    action = 'created';
    rawKey = inserted;
  }
  for (const [groupName, entries] of Object.entries(request.groups ?? {})) {
    const group = object.groups.get(groupName)!;
    const parentKey = rawKey[groupParentKey(object)];
    for (const [type, entry] of Object.entries(entries)) await upsertGroupEntry(trx, scope, group, parentKey, type, entry);
  }
  return writeResult(object, action, rawKey);
}

/**
 * A create that met an existing record on its unique index: looked up again (the other writer has
 * committed by now) and stored as a match. Found nothing — the conflict was on another unique
 * value, or the record is gone — it is inserted plainly, and the database's refusal, if any, is
 * the answer, as without the conflict clause.
 */
export async function storeMatched(trx: Knex.Transaction, scope: ObjectScope, prepared: PreparedWrite): Promise<WriteResult> {
  return storeRecord(trx, scope, prepared, await findRecord(trx, scope, prepared), NO_GUARD);
}

export async function writeRecord(scope: WriteScope, request: WriteRequest): Promise<WriteResult> {
  const { object } = scope;
  const prepared = prepareWrite(scope, request);
  try {
    const guarded = await guardWrites(scope, [prepared], false);
    return await writeTransaction(scope, guarded, async (trx) =>
      storeRecord(trx, scope, prepared, await findRecord(trx, scope, prepared), guarded.guards[0]),
    );
  } catch (error) {
    throw toConnectorError(error, { systemId: object.systemId, action: `writing ${object.name}` });
  }
}

/**
 * Inserts and returns the key as stored, generated parts included (RETURNING, or MySQL's insert
 * id); undefined when a unique `guard` met an existing record instead.
 */
export async function insertRecord(
  trx: Knex.Transaction,
  scope: ObjectScope,
  row: Row,
  guard: WriteGuard = NO_GUARD,
): Promise<Row | undefined> {
  const { object } = scope;
  let insertId: number | undefined;
  if (guard.kind === 'unique') {
    const outcome = await insertUnlessConflict(trx, scope, [row], guard.columns, true);
    if (outcome.inserted === 0) return undefined;
    if (scope.engine.returning) return { ...outcome.keys[0] };
    insertId = outcome.insertId;
  } else if (scope.engine.returning) {
    const returned = (await trx(object.table).insert(row).returning(keyColumns(trx, scope))) as Row[];
    return { ...returned[0] };
  } else {
    [insertId] = (await trx(object.table).insert(row)) as number[];
  }
  const key: Row = {};
  for (const name of object.key) key[name] = row[name];
  const generated = object.key.filter((name) => row[name] === undefined);
  if (generated.length === 1 && insertId !== undefined && insertId !== 0) key[generated[0]!] = insertId;
  return key;
}
