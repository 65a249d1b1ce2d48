/**
 * The latest run each schedule enqueued, for the console: the slot the `schedules` row remembers
 * (schedule-slot.ts) and its queue item's status, when the item is still there (pruned items leave
 * the status unknown).
 *
 *   SELECT schedules.process_id, schedules.last_slot_at, schedules.last_item_id, queue_items.status
 *     FROM schedules LEFT JOIN queue_items ON queue_items.id = schedules.last_item_id
 *    WHERE schedules.last_item_id IS NOT NULL AND schedules.process_id IN (?, …)
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { fromDatabaseTime } from '../database/timestamps.js';
import type { QueueStatus } from './queue-item.js';

export interface LastScheduledRun {
  /** The slot's time: when the schedule said the run was due. */
  slotAt: Date;
  itemId: string;
  /** Null when the item was pruned since. */
  status: QueueStatus | null;
}

/** The last scheduled run of each of `processIds` that has one. */
export async function lastScheduledRuns(db: RuntimeDatabase, processIds: readonly string[]): Promise<Map<string, LastScheduledRun>> {
  if (processIds.length === 0) return new Map();
  const rows = (await db
    .knex('schedules')
    .leftJoin('queue_items', 'queue_items.id', 'schedules.last_item_id')
    .select('schedules.process_id', 'schedules.last_slot_at', 'schedules.last_item_id', 'queue_items.status')
    // A row without an item is one whose first enqueue has not committed, or never will.
    .whereNotNull('schedules.last_item_id')
    .whereIn('schedules.process_id', [...processIds])) as Array<Record<string, unknown>>;
  return new Map(
    rows.map((row) => [
      String(row.process_id),
      {
        slotAt: fromDatabaseTime(row.last_slot_at),
        itemId: String(row.last_item_id),
        status: row.status === null || row.status === undefined ? null : (String(row.status) as QueueStatus),
      },
    ]),
  );
}
