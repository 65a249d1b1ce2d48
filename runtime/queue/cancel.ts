/**
 * Cancel: a Pending item ends Failed without running, its errors saying why — for a start whose
 * caller gave up while it waited in line (`syncline run` stopped with Ctrl-C). Only a Pending
 * item: one a worker holds is that worker's to finish, and a finished one stays as it ended.
 *
 * In one write transaction (write-transaction.ts):
 *   SELECT errors FROM queue_items WHERE id = ? AND status = 'Pending'  FOR UPDATE  (not on SQLite)
 *   UPDATE queue_items SET status = 'Failed', finished_at = ?, errors = ?
 *    WHERE id = ? AND status = 'Pending'
 */
import { fromJsonColumn } from '../database/column-values.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { appendErrors } from './complete.js';
import type { ItemError } from './queue-item.js';

/** Ends the Pending item `id` as Failed with `message`; false when it was no longer Pending. */
export async function cancelPending(db: RuntimeDatabase, id: string, message: string, now = new Date()): Promise<boolean> {
  const pending = { id, status: 'Pending' };
  return writeTransaction(db, async (trx) => {
    const select = trx('queue_items').select('errors').where(pending);
    if (db.engine.rowLocks) select.forUpdate();
    const row = (await select.first()) as { errors: unknown } | undefined;
    if (row === undefined) return false;
    const errors = appendErrors((fromJsonColumn(row.errors) as ItemError[] | null) ?? [], [{ message }], now);
    const updated = await trx('queue_items')
      .where(pending)
      .update({ status: 'Failed', finished_at: toDatabaseTime(db.dialect, now), errors: JSON.stringify(errors) });
    return updated === 1;
  });
}
