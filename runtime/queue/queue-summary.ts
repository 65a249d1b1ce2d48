/**
 * What the queue holds, for `/readyz`, the console and the daemon's sleep.
 *
 *   SELECT status, COUNT(*) AS count FROM queue_items GROUP BY status
 *   SELECT MIN(run_after) AS next FROM queue_items WHERE status = 'Pending'
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { fromNullableDatabaseTime } from '../database/timestamps.js';
import { queueStatuses, type QueueStatus } from './queue-item.js';

/** How many items are in each status (every status present, zero when none). */
export async function countByStatus(db: RuntimeDatabase): Promise<Record<QueueStatus, number>> {
  const counts = Object.fromEntries(queueStatuses.map((status) => [status, 0])) as Record<QueueStatus, number>;
  const rows = (await db.knex('queue_items').select('status').count({ count: '*' }).groupBy('status')) as Array<{ status: QueueStatus; count: number | string }>;
  // PostgreSQL answers COUNT(*) as a bigint string.
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}

/** When the earliest Pending item becomes due (maybe already), or null when none is Pending. */
export async function nextRunAfter(db: RuntimeDatabase): Promise<Date | null> {
  const row = (await db.knex('queue_items').min({ next: 'run_after' }).where('status', 'Pending').first()) as { next: unknown } | undefined;
  return fromNullableDatabaseTime(row?.next);
}
