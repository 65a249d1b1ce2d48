/**
 * Enqueue a schedule's slot: one item per slot across all processes. Every scheduler that sees a
 * slot come due enqueues it under the slot key `processId@slotTimeISO`; the unique key lets the
 * first insert win and turns the others into no-ops (enqueue.ts). The `schedules` row remembers
 * the latest slot, so slots whose items were pruned since are not run again after a restart.
 *
 * The schedule's row is created first on its own (a no-op once it exists), then locked as the
 * first step of the transaction, so enqueues of one schedule queue up behind each other instead
 * of meeting in the unique slot index (where MariaDB lets two waiting inserts deadlock):
 *   INSERT INTO schedules (process_id, last_slot_at, last_item_id, updated_at) VALUES (?, ?, NULL, ?)
 *     ON CONFLICT (process_id) DO NOTHING                                    (INSERT IGNORE on MariaDB)
 * then in one write transaction:
 *   SELECT last_slot_at FROM schedules WHERE process_id = ? FOR UPDATE    (not on SQLite)
 *   INSERT INTO queue_items (…, slot_key) VALUES (…, ?) ON CONFLICT (slot_key) DO NOTHING
 *   SELECT * FROM queue_items WHERE slot_key = ?
 *   UPDATE schedules SET last_slot_at = ?, last_item_id = ?, updated_at = ?
 *    WHERE process_id = ? AND (last_slot_at < ? OR last_item_id IS NULL)
 * then waiting daemons are woken (notify.ts).
 *
 *   lastSlots: SELECT process_id, last_slot_at FROM schedules WHERE last_item_id IS NOT NULL
 *   (a row without an item is one whose first enqueue has not committed, or never will)
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { fromDatabaseTime, toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { insertItem, type EnqueueResult, type NewQueueItem } from './enqueue.js';
import { announceWork } from './notify.js';

/** The unique key of one slot of one schedule. */
export function slotKey(processId: string, slotAt: Date): string {
  return `${processId}@${slotAt.toISOString()}`;
}

export interface SlotItem extends Omit<NewQueueItem, 'slotKey' | 'runAfter'> {
  /** The slot's time: when the schedule says the run is due. */
  slotAt: Date;
}

/** Enqueues the slot unless some process already did; `created` tells which. */
export async function enqueueSlot(db: RuntimeDatabase, slot: SlotItem, options: { now?: Date } = {}): Promise<EnqueueResult> {
  const now = options.now ?? new Date();
  const time = (value: Date) => toDatabaseTime(db.dialect, value);
  const { slotAt, ...item } = slot;
  await db
    .knex('schedules')
    .insert({ process_id: slot.processId, last_slot_at: time(slotAt), last_item_id: null, updated_at: time(now) })
    .onConflict('process_id')
    .ignore();
  const result = await writeTransaction(db, async (trx) => {
    const lock = trx('schedules').select('last_slot_at').where('process_id', slot.processId);
    if (db.engine.rowLocks) lock.forUpdate();
    await lock;
    const enqueued = await insertItem(db, trx, { ...item, slotKey: slotKey(slot.processId, slotAt), runAfter: slotAt }, now);
    await trx('schedules')
      .where('process_id', slot.processId)
      .andWhere((newer) => newer.where('last_slot_at', '<', time(slotAt)).orWhereNull('last_item_id'))
      .update({ last_slot_at: time(slotAt), last_item_id: enqueued.item.id, updated_at: time(now) });
    return enqueued;
  });
  if (result.created && result.item.runAfter <= now) await announceWork(db);
  return result;
}

/** The latest slot each schedule enqueued, by process id. */
export async function lastSlots(db: RuntimeDatabase): Promise<Map<string, Date>> {
  const rows = (await db.knex('schedules').select('process_id', 'last_slot_at').whereNotNull('last_item_id')) as Array<{
    process_id: string;
    last_slot_at: unknown;
  }>;
  return new Map(rows.map((row) => [String(row.process_id), fromDatabaseTime(row.last_slot_at)]));
}
