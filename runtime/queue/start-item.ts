/**
 * Start: a new item for the process that inserts it to run itself (StartProcessDirect,
 * ExecuteProcess, `syncline run`). It is claimed by that process in the same transaction that
 * inserts it, exactly as a daemon would claim it: attempt 1 counted, lease starting now. If the
 * process dies, the reaper takes the item back after the lease: to Pending for a daemon when it has
 * attempts left, else Failed with an error saying its worker was lost (the direct routes and
 * `syncline run` start items with one attempt: their caller waits for that outcome).
 *
 * In one write transaction (write-transaction.ts), so no daemon claims it in between:
 *   SELECT name FROM queue_locks WHERE name = 'claim' FOR UPDATE           (claim.ts; not SQLite)
 *   INSERT INTO queue_items (…) VALUES (…, 'Pending', 0, …)                (enqueue.ts insertItem)
 *   UPDATE queue_items SET status = 'InProgress', … WHERE id IN (…)        (claim.ts, this item only)
 *   SELECT * FROM queue_items WHERE id = ?
 *
 * When the item's concurrency key is at its limit, the claim takes nothing: the item answers
 * Pending and waits in line like any other (the caller may claim it later, or a daemon will); under
 * a skip or fail policy it answers already finished, with the note insertItem gave it. No daemon is
 * woken for an item that was claimed here: there is nothing for it to do.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { writeTransaction } from '../database/write-transaction.js';
import { claimWithin, lockClaims } from './claim.js';
import { insertItem, type NewQueueItem } from './enqueue.js';
import { announceWork } from './notify.js';
import { fromRow, type QueueRow } from './queue-item.js';

export interface StartOptions {
  /** The process that runs the item (its heartbeats and completion use this id). */
  workerId: string;
  /** How long the hold lasts without a heartbeat, in ms. */
  leaseMs: number;
  now?: Date;
}

/**
 * Inserts `item` and claims it for `workerId`; answers the stored row: InProgress (held, attempt 1
 * under way), Pending (its concurrency key is at its limit: it waits in line), or Complete/Failed
 * (not run under a skip or fail policy).
 */
export async function startItem(db: RuntimeDatabase, item: NewQueueItem, options: StartOptions): Promise<QueueRow> {
  // A slot belongs to the schedulers: a started item never takes one, or a scheduled run would be lost.
  if (item.slotKey !== undefined) throw new RangeError('startItem: a started item has no slot key; schedules use enqueueSlot');
  if (!(options.leaseMs > 0)) throw new RangeError(`startItem: leaseMs must be positive, not ${options.leaseMs}`);
  if (options.workerId === '') throw new RangeError('startItem: workerId must not be empty');
  const now = options.now ?? new Date();
  const started = await writeTransaction(db, async (trx) => {
    await lockClaims(db, trx);
    const { item: inserted } = await insertItem(db, trx, { ...item, runAfter: now }, now);
    if (inserted.status !== 'Pending') return inserted;
    const [claimed] = await claimWithin(db, trx, {
      workerId: options.workerId,
      leaseMs: options.leaseMs,
      limit: 1,
      ids: [inserted.id],
      now,
    });
    if (claimed !== undefined) return claimed;
    const stored = (await trx('queue_items').where('id', inserted.id).first()) as Record<string, unknown> | undefined;
    if (stored === undefined) throw new Error(`queue item ${inserted.id} was started but cannot be read back`);
    return fromRow(stored);
  });
  // Waiting in line: a daemon may run it before this process gets its turn.
  if (started.status === 'Pending') await announceWork(db);
  return started;
}
