/**
 * Reap: take back the items of workers that stopped renewing their leases (crashed, killed, cut
 * off from the database). The lost attempt counts (it was counted when claimed): with attempts
 * left, the item returns to Pending at once and keeps its place in line; without, it fails with
 * an error that says so. Either way the item's errors record what happened. Any process may reap;
 * reapers on PostgreSQL and MariaDB skip each other's rows, on SQLite they take turns.
 *
 * In one write transaction (write-transaction.ts):
 *   SELECT id, attempts, max_attempts, locked_by, lease_until, errors FROM queue_items
 *    WHERE status = 'InProgress' AND lease_until < ?
 *    ORDER BY lease_until
 *    LIMIT ?
 *    FOR UPDATE SKIP LOCKED                                   (not on SQLite)
 *   per item, attempts left:
 *     UPDATE queue_items
 *        SET status = 'Pending', locked_by = NULL, lease_until = NULL, started_at = NULL, errors = ?
 *      WHERE id = ? AND status = 'InProgress' AND locked_by = ?
 *   else:
 *     UPDATE queue_items SET status = 'Failed', finished_at = ?, lease_until = NULL, errors = ?
 *      WHERE id = ? AND status = 'InProgress' AND locked_by = ?
 */
import { fromJsonColumn } from '../database/column-values.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { fromDatabaseTime, toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { appendErrors } from './complete.js';
import { announceWork } from './notify.js';
import type { ItemError } from './queue-item.js';

export interface ReapResult {
  /** Ids returned to Pending. */
  pending: string[];
  /** Ids failed after their last attempt. */
  failed: string[];
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The error recorded on a reaped item. */
export function lostWorkerMessage(lost: { lockedBy: string; leaseUntil: Date; attempts: number; maxAttempts: number }): string {
  const what = `lost its worker ${lost.lockedBy} (lease expired at ${lost.leaseUntil.toISOString()})`;
  if (lost.attempts < lost.maxAttempts) {
    return `attempt ${lost.attempts} ${what}; returned to Pending for attempt ${lost.attempts + 1} of ${lost.maxAttempts}`;
  }
  return `${what} after ${plural(lost.attempts, 'attempt')}; failed because the retry limit of ${plural(lost.maxAttempts, 'attempt')} is reached`;
}

/** Reaps up to `limit` items whose lease ended before `now`; with `concurrencyKey`, only the items under that key. */
export async function reap(
  db: RuntimeDatabase,
  options: { now?: Date; limit?: number; concurrencyKey?: string } = {},
): Promise<ReapResult> {
  const now = options.now ?? new Date();
  const time = (value: Date) => toDatabaseTime(db.dialect, value);
  const result = await writeTransaction(db, async (trx) => {
    const select = trx('queue_items')
      .select('id', 'attempts', 'max_attempts', 'locked_by', 'lease_until', 'errors')
      .where('status', 'InProgress')
      .andWhere('lease_until', '<', time(now))
      .modify((query) => {
        if (options.concurrencyKey !== undefined) query.andWhere('concurrency_key', options.concurrencyKey);
      })
      .orderBy('lease_until')
      .limit(options.limit ?? 100);
    if (db.engine.rowLocks) select.forUpdate().skipLocked();
    const expired = (await select) as Array<Record<string, unknown>>;

    const reaped: ReapResult = { pending: [], failed: [] };
    for (const row of expired) {
      const id = String(row.id);
      const lost = {
        lockedBy: String(row.locked_by),
        leaseUntil: fromDatabaseTime(row.lease_until),
        attempts: Number(row.attempts),
        maxAttempts: Number(row.max_attempts),
      };
      const earlier = (fromJsonColumn(row.errors) as ItemError[] | null) ?? [];
      const errors = JSON.stringify(appendErrors(earlier, [{ message: lostWorkerMessage(lost) }], now));
      const retry = lost.attempts < lost.maxAttempts;
      const updated = await trx('queue_items')
        .where({ id, status: 'InProgress', locked_by: lost.lockedBy })
        .update(
          retry
            ? { status: 'Pending', locked_by: null, lease_until: null, started_at: null, errors }
            : { status: 'Failed', finished_at: time(now), lease_until: null, errors },
        );
      if (updated === 1) (retry ? reaped.pending : reaped.failed).push(id);
    }
    return reaped;
  });
  if (result.pending.length > 0) await announceWork(db);
  return result;
}
