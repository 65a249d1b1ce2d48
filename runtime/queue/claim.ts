/**
 * Claim: up to `limit` due Pending items for one worker, oldest due first (run_after, then
 * created_at). Each becomes InProgress, held by the worker until `lease_until`, with one more
 * attempt counted. No item is ever claimed by two workers.
 *
 * PostgreSQL — one statement; rows another claimer has locked are skipped, not waited for:
 *
 *   UPDATE queue_items
 *      SET status = 'InProgress', locked_by = ?, lease_until = ?, started_at = ?, attempts = attempts + 1
 *    WHERE id IN (SELECT id FROM queue_items
 *                  WHERE status = 'Pending' AND run_after <= ?
 *                  ORDER BY run_after, created_at
 *                  LIMIT ?
 *                  FOR UPDATE SKIP LOCKED)
 *   RETURNING *
 *
 * SQLite — the same statement without the locking clause. One statement is one writer
 * transaction, and SQLite has one writer at a time, so there is nothing to skip: claimers in
 * other processes wait (busy timeout) and then see the items as claimed.
 *
 * MariaDB/MySQL — no UPDATE … RETURNING and no LIMIT in an IN subquery, so three statements in
 * one READ COMMITTED transaction (write-transaction.ts):
 *
 *   SELECT id FROM queue_items
 *    WHERE status = 'Pending' AND run_after <= ?
 *    ORDER BY run_after, created_at
 *    LIMIT ?
 *    FOR UPDATE SKIP LOCKED
 *   UPDATE queue_items
 *      SET status = 'InProgress', locked_by = ?, lease_until = ?, started_at = ?, attempts = attempts + 1
 *    WHERE id IN (…the ids…)
 *   SELECT * FROM queue_items WHERE id IN (…the ids…)
 */
import type { Knex } from 'knex';
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { fromRow, type QueueRow } from './queue-item.js';

export interface ClaimOptions {
  /** Who claims: a name unique to the worker process (host, pid, a random part). */
  workerId: string;
  /** Most items to claim at once. */
  limit: number;
  /** How long the claim holds without a heartbeat, in ms. */
  leaseMs: number;
  now?: Date;
}

/** Rows of a raw query: pg answers `{rows}`, mysql2 `[rows, fields]`, sqlite3 the rows. */
function rawRows(result: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(result)) return (Array.isArray(result[0]) ? result[0] : result) as Array<Record<string, unknown>>;
  return ((result as { rows?: unknown[] }).rows ?? []) as Array<Record<string, unknown>>;
}

/**
 * One statement claims a batch. PostgreSQL skips rows other claimers hold; SQLite needs no lock
 * clause because the statement is itself the one writer transaction.
 */
function claimStatement(lockClause: '' | 'FOR UPDATE SKIP LOCKED'): string {
  return `
  UPDATE queue_items
     SET status = 'InProgress', locked_by = ?, lease_until = ?, started_at = ?, attempts = attempts + 1
   WHERE id IN (SELECT id FROM queue_items
                 WHERE status = 'Pending' AND run_after <= ?
                 ORDER BY run_after, created_at
                 LIMIT ?
                 ${lockClause})
  RETURNING *`;
}
const postgresClaim = claimStatement('FOR UPDATE SKIP LOCKED');
const sqliteClaim = claimStatement('');

const mysqlSelectDue = `
  SELECT id FROM queue_items
   WHERE status = 'Pending' AND run_after <= ?
   ORDER BY run_after, created_at
   LIMIT ?
   FOR UPDATE SKIP LOCKED`;

async function claimOnMysql(trx: Knex.Transaction, values: { workerId: string; leaseUntil: Date | string; now: Date | string; limit: number }): Promise<Array<Record<string, unknown>>> {
  const due = rawRows(await trx.raw(mysqlSelectDue, [values.now, values.limit]));
  const ids = due.map((row) => String(row.id));
  if (ids.length === 0) return [];
  await trx('queue_items')
    .whereIn('id', ids)
    .update({ status: 'InProgress', locked_by: values.workerId, lease_until: values.leaseUntil, started_at: values.now, attempts: trx.raw('attempts + 1') });
  return (await trx('queue_items').whereIn('id', ids)) as Array<Record<string, unknown>>;
}

/** Claims due items for `workerId`; answers them in claim order (possibly none). */
export async function claim(db: RuntimeDatabase, options: ClaimOptions): Promise<QueueRow[]> {
  if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError(`claim: limit must be a whole number of at least 1, not ${options.limit}`);
  if (!(options.leaseMs > 0)) throw new RangeError(`claim: leaseMs must be positive, not ${options.leaseMs}`);
  const nowDate = options.now ?? new Date();
  const now = toDatabaseTime(db.dialect, nowDate);
  const leaseUntil = toDatabaseTime(db.dialect, new Date(nowDate.getTime() + options.leaseMs));

  let rows: Array<Record<string, unknown>>;
  if (db.dialect === 'mysql') {
    rows = await writeTransaction(db, (trx) => claimOnMysql(trx, { workerId: options.workerId, leaseUntil, now, limit: options.limit }));
  } else {
    const statement = db.dialect === 'postgres' ? postgresClaim : sqliteClaim;
    rows = rawRows(await db.knex.raw(statement, [options.workerId, leaseUntil, now, now, options.limit]));
  }
  return rows.map(fromRow).sort((a, b) => a.runAfter.getTime() - b.runAfter.getTime() || a.createdAt.getTime() - b.createdAt.getTime());
}
