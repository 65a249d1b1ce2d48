/**
 * The transaction a write (write.ts) or a batch of writes (write-many.ts) runs in, and what makes
 * each write's lookup and the create it may lead to atomic per match key, so that concurrent
 * writers of the same records — overlapping runs of a sync, two syncs into one table, identical
 * webhook calls — never create one record twice:
 *
 * - SQLite: nothing more. Write transactions begin IMMEDIATE (engines/sqlite-clients.ts): the
 *   single writer lock is held from before the lookup to the commit.
 * - A write matching on exactly the columns of a unique index (unique-keys.ts) and on no null:
 *   guard `unique`, its create carrying a conflict clause on them (conflict-insert.ts).
 * - Any other write with a match: guard `lock`, its match values' bucket locked before the first
 *   lookup (match-locks.ts).
 * - A batch locks the buckets of its `unique` writes as well. The index alone keeps their records
 *   single, but two batches creating and updating the same records in different orders (two syncs
 *   reading their sources in different orders) would each hold rows the other waits for — a
 *   deadlock, again after every retry. Every bucket of a batch is taken at once, in order, before
 *   its first lookup: batches sharing one take turns instead. A single write holds one record and
 *   waits for nobody while holding it: it needs no lock behind an index.
 * - A write without a match creates without looking anything up: nothing to guard.
 *
 * MariaDB/MySQL's GET_LOCK belongs to the session: the transaction runs on a connection taken from
 * the pool here, and the locks are released on it after COMMIT or ROLLBACK, before it goes back.
 * Its sessions run READ COMMITTED (engines/mysql.ts), so a lookup after a wait sees what the other
 * writer committed. A transaction the database rolled back to break a deadlock is run again from
 * the start, a few times: nothing of it was kept.
 */
import type { Knex } from 'knex';
import { isTransientConflict } from './database-errors.js';
import { matchBucket, releaseSessionLocks, takeMatchLocks, type LockScope } from './match-locks.js';
import type { PreparedWrite } from './prepare-write.js';
import type { ObjectScope } from './record-query.js';
import { uniqueKeyOn, type TableCatalog } from './unique-keys.js';

/** The scope of a write: the object's, and the connection's catalog of table facts (not on SQLite). */
export interface WriteScope extends ObjectScope {
  tables: TableCatalog | undefined;
}

/** How one write's lookup and create are kept atomic; `bucket` is its match values' lock. */
export type WriteGuard =
  | { kind: 'none' }
  | { kind: 'unique'; columns: readonly string[]; bucket: number }
  | { kind: 'lock'; bucket: number };

export const NO_GUARD: WriteGuard = { kind: 'none' };

/** The guards of a batch's writes (by position) and the locks its transaction takes first. */
export interface GuardedWrites {
  guards: WriteGuard[];
  lockScope: LockScope | undefined;
  /** Ascending, distinct. */
  buckets: number[];
}

const ATTEMPTS = 4;

/**
 * The guard of each write (`undefined` for a write already refused) and the buckets its transaction
 * locks: those of the `lock` writes, and with `batch` (writeMany) those of the `unique` ones too.
 */
export async function guardWrites(
  scope: WriteScope,
  writes: ReadonlyArray<PreparedWrite | undefined>,
  batch: boolean,
): Promise<GuardedWrites> {
  const guards: WriteGuard[] = writes.map(() => NO_GUARD);
  const unguarded: GuardedWrites = { guards, lockScope: undefined, buckets: [] };
  if (scope.tables === undefined || !writes.some((write) => write?.match !== undefined)) return unguarded;
  const facts = await scope.tables.get(scope.object.table);
  // No such table: every write fails on it, and says so.
  if (facts === undefined) return unguarded;
  const unique = new Map<string, readonly string[] | undefined>();
  const buckets = new Set<number>();
  writes.forEach((write, position) => {
    const match = write?.match;
    if (match === undefined) return;
    const fields = Object.keys(match);
    const set = [...fields].sort().join('\u0000');
    if (!unique.has(set)) unique.set(set, uniqueKeyOn(facts, scope.engine.name, fields));
    const columns = unique.get(set);
    const bucket = matchBucket(scope.object, match);
    // A unique index lets any number of rows hold null in its columns: no arbiter for a null.
    if (columns !== undefined && fields.every((name) => match[name] !== null && match[name] !== undefined)) {
      guards[position] = { kind: 'unique', columns, bucket };
      if (batch) buckets.add(bucket);
    } else {
      guards[position] = { kind: 'lock', bucket };
      buckets.add(bucket);
    }
  });
  return { guards, lockScope: facts.lockScope, buckets: [...buckets].sort((a, b) => a - b) };
}

async function once<T>(scope: WriteScope, guarded: GuardedWrites, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  const { knex, object } = scope;
  const dialect = scope.engine.name;
  const locked = async (trx: Knex.Transaction): Promise<T> => {
    if (guarded.lockScope !== undefined)
      await takeMatchLocks(trx, dialect, guarded.lockScope, guarded.buckets, { systemId: object.systemId, objectName: object.name });
    return work(trx);
  };
  if (dialect !== 'mysql' || guarded.buckets.length === 0) return knex.transaction(locked);
  const connection: unknown = await knex.client.acquireConnection();
  try {
    return await knex.transaction(locked, { connection });
  } finally {
    try {
      await releaseSessionLocks(knex, connection);
    } catch {
      // A session that cannot release its locks must not serve anyone else with them: closing it
      // releases them, and the pool drops a closed connection.
      (connection as { destroy?: () => void }).destroy?.();
    }
    await knex.client.releaseConnection(connection);
  }
}

/** Runs `work` in a write transaction guarded as `guarded` says; again when a deadlock rolled it back. */
export async function writeTransaction<T>(
  scope: WriteScope,
  guarded: GuardedWrites,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await once(scope, guarded, work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isTransientConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * attempt));
    }
  }
}
