/**
 * What the queue holds, for `/readyz`, the console and the daemon's sleep.
 *
 *   SELECT status, COUNT(*) AS count FROM queue_items [WHERE process_id IN (?, …)] GROUP BY status
 *   nextRunAfter: the earliest run_after of the Pending items a claim could take (below)
 *   nextDueAfter: the earliest run_after still to come
 *     SELECT MIN(run_after) AS next FROM queue_items WHERE status = 'Pending' AND run_after > ?
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { rawRows } from '../database/raw-rows.js';
import { fromNullableDatabaseTime, toDatabaseTime } from '../database/timestamps.js';
import { busyKeys } from './claim.js';
import { queueStatuses, type QueueStatus } from './queue-item.js';

/**
 * How many items are in each status (every status present, zero when none); with `processIds`,
 * only the items of those syncs and flows (a console client with an allow-list counts its own).
 */
export async function countByStatus(db: RuntimeDatabase, processIds?: readonly string[]): Promise<Record<QueueStatus, number>> {
  const counts = Object.fromEntries(queueStatuses.map((status) => [status, 0])) as Record<QueueStatus, number>;
  if (processIds !== undefined && processIds.length === 0) return counts;
  const query = db.knex('queue_items').select('status').count({ count: '*' }).groupBy('status');
  if (processIds !== undefined) query.whereIn('process_id', [...processIds]);
  const rows = (await query) as Array<{
    status: QueueStatus;
    count: number | string;
  }>;
  // PostgreSQL answers COUNT(*) as a bigint string.
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}

/**
 * When the earliest Pending item that a claim could take becomes due (maybe already), or null
 * when there is none: items whose concurrency key is at its limit are left out, since they wait
 * for a run to end (which announces it), not for a time.
 */
export async function nextRunAfter(db: RuntimeDatabase): Promise<Date | null> {
  const [row] = rawRows(await db.knex.raw(nextClaimable(db.dialect)));
  return fromNullableDatabaseTime(row?.next);
}

/**
 * When the earliest Pending item not yet due becomes due, or null: what the daemon sleeps until
 * after a claim that found fewer items than it asked for. Items already due that it did not get
 * wait for a place under their key, or arrived after its claim; either is announced (notify.ts),
 * so only the time to come needs a look — one step in the claim index, whatever the backlog.
 */
export async function nextDueAfter(db: RuntimeDatabase, now: Date): Promise<Date | null> {
  const [row] = (await db
    .knex('queue_items')
    .min({ next: 'run_after' })
    .where('status', 'Pending')
    .andWhere('run_after', '>', toDatabaseTime(db.dialect, now))) as Array<{ next: unknown }>;
  return fromNullableDatabaseTime(row?.next);
}

const nextClaimable = (dialect: RuntimeDatabase['dialect']): string => `
  WITH ${busyKeys(dialect)}
  SELECT MIN(waiting.run_after) AS next FROM queue_items waiting
    LEFT JOIN busy ON busy.busy_key = waiting.concurrency_key
   WHERE waiting.status = 'Pending'
     AND (waiting.concurrency_key IS NULL OR COALESCE(busy.running, 0) < waiting.concurrency_limit)`;
