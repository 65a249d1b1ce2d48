/**
 * Progress: the heartbeat of one running item that also stores the statistics so far, so
 * GetAction and the console show how far an InProgress item got. Guarded like complete.ts: only
 * the worker still holding the item writes, and `false` tells a worker whose item was reaped
 * (and maybe claimed by another) that its run must stop.
 *
 *   UPDATE queue_items SET lease_until = ?[, statistics = ?]
 *    WHERE id = ? AND locked_by = ? AND status = 'InProgress' [AND attempts = ?]
 *
 * One statement and no transaction: it runs every few seconds per running item.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { heldBy } from './complete.js';
import type { ItemStatistics } from './queue-item.js';

export interface ProgressReport {
  id: string;
  workerId: string;
  /** The attempt the worker runs; see AttemptResult.attempt. */
  attempt?: number;
  /** The new lease, from now, in ms. */
  leaseMs: number;
  /** The statistics so far; absent leaves the stored ones. */
  statistics?: Readonly<ItemStatistics>;
  now?: Date;
}

/** Extends the lease of one held item and stores its progress; false when the worker no longer holds it. */
export async function recordProgress(db: RuntimeDatabase, report: ProgressReport): Promise<boolean> {
  const now = report.now ?? new Date();
  const updated = await db
    .knex('queue_items')
    .where(heldBy(report))
    .update({
      lease_until: toDatabaseTime(db.dialect, new Date(now.getTime() + report.leaseMs)),
      ...(report.statistics === undefined ? {} : { statistics: JSON.stringify(report.statistics) }),
    });
  // mysql2 counts matched rows (FOUND_ROWS), so an unchanged row still answers 1.
  return updated === 1;
}
