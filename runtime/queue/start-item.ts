/**
 * Start: a new item that is InProgress from the moment it exists, held by the process that
 * inserts it (StartProcessDirect, ExecuteProcess, `syncline run`), which then runs it itself.
 * Its first attempt is counted and its lease starts now, exactly as if a daemon had claimed it;
 * if that process dies, the reaper takes the item back after the lease: to Pending for a daemon
 * when it has attempts left, else Failed with an error saying its worker was lost (the direct
 * routes and `syncline run` start items with one attempt: their caller waits for that outcome).
 *
 * In one write transaction (write-transaction.ts), so no claimer ever sees it Pending:
 *   INSERT INTO queue_items (…) VALUES (…, 'Pending', 0, …)           (enqueue.ts insertItem)
 *   UPDATE queue_items
 *      SET status = 'InProgress', locked_by = ?, lease_until = ?, started_at = ?, attempts = 1
 *    WHERE id = ?
 *   SELECT * FROM queue_items WHERE id = ?
 *
 * No daemon is woken: there is nothing for it to claim.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { insertItem, type NewQueueItem } from './enqueue.js';
import { fromRow, type QueueRow } from './queue-item.js';

export interface StartOptions {
  /** The process that runs the item (its heartbeats and completion use this id). */
  workerId: string;
  /** How long the hold lasts without a heartbeat, in ms. */
  leaseMs: number;
  now?: Date;
}

/** Inserts `item` already InProgress, held by `workerId` with attempt 1 under way; answers the stored row. */
export async function startItem(db: RuntimeDatabase, item: NewQueueItem, options: StartOptions): Promise<QueueRow> {
  // A slot belongs to the schedulers: a started item never takes one, or a scheduled run would be lost.
  if (item.slotKey !== undefined) throw new RangeError('startItem: a started item has no slot key; schedules use enqueueSlot');
  if (!(options.leaseMs > 0)) throw new RangeError(`startItem: leaseMs must be positive, not ${options.leaseMs}`);
  if (options.workerId === '') throw new RangeError('startItem: workerId must not be empty');
  const now = options.now ?? new Date();
  const time = (value: Date) => toDatabaseTime(db.dialect, value);
  return writeTransaction(db, async (trx) => {
    const { item: inserted } = await insertItem(db, trx, item, now);
    await trx('queue_items')
      .where('id', inserted.id)
      .update({ status: 'InProgress', locked_by: options.workerId, lease_until: time(new Date(now.getTime() + options.leaseMs)), started_at: time(now), attempts: 1 });
    const stored = (await trx('queue_items').where('id', inserted.id).first()) as Record<string, unknown> | undefined;
    if (stored === undefined) throw new Error(`queue item ${inserted.id} was started but cannot be read back`);
    return fromRow(stored);
  });
}
