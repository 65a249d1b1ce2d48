/**
 * How many items each sync (or flow) has in each status, and since when the earliest of each
 * group has been due, in one grouped count — what /metrics reports per scrape (metrics/queue-gauges.ts):
 *
 *   SELECT process_id, status, COUNT(*) AS count, MIN(run_after) AS earliest
 *     FROM queue_items
 *    GROUP BY process_id, status
 *
 * One statement whatever the number of syncs, answering one row per sync and status present.
 * `earliest` is read for Pending groups only: the earliest time one of them was due (a retry's
 * backoff or a schedule's slot may put it in the future).
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { fromDatabaseTime } from '../database/timestamps.js';
import type { QueueStatus } from './queue-item.js';

export interface QueueDepthRow {
  processId: string;
  status: QueueStatus;
  count: number;
  /** The earliest run_after of the group's items. */
  earliest: Date;
}

/** The items per sync (or flow) and status; groups without items are absent. */
export async function queueDepth(db: RuntimeDatabase): Promise<QueueDepthRow[]> {
  const rows = (await db
    .knex('queue_items')
    .select('process_id', 'status')
    .count({ count: '*' })
    .min({ earliest: 'run_after' })
    .groupBy('process_id', 'status')) as Array<{ process_id: string; status: QueueStatus; count: number | string; earliest: unknown }>;
  // PostgreSQL answers COUNT(*) as a bigint string.
  return rows.map((row) => ({
    processId: String(row.process_id),
    status: row.status,
    count: Number(row.count),
    earliest: fromDatabaseTime(row.earliest),
  }));
}
