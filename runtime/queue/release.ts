/**
 * Release: a worker that stops (SIGTERM) hands its unfinished items back. They become Pending at
 * once, keep their place in line (run_after unchanged) and get the interrupted attempt back
 * (attempts − 1): an orderly stop is not the item's failure and must not use up its retries.
 * Contrast reap.ts, where the attempt of a lost worker counts.
 *
 *   UPDATE queue_items
 *      SET status = 'Pending', locked_by = NULL, lease_until = NULL, started_at = NULL,
 *          attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END
 *    WHERE locked_by = ? AND status = 'InProgress' [AND id IN (?, …)]
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { announceWork } from './notify.js';

/** Returns the worker's items (or those of `ids` it holds) to Pending; answers how many. */
export async function release(db: RuntimeDatabase, options: { workerId: string; ids?: readonly string[] }): Promise<number> {
  if (options.ids !== undefined && options.ids.length === 0) return 0;
  const query = db.knex('queue_items').where({ locked_by: options.workerId, status: 'InProgress' });
  if (options.ids !== undefined) query.whereIn('id', [...options.ids]);
  const released = await query.update({
    status: 'Pending',
    locked_by: null,
    lease_until: null,
    started_at: null,
    attempts: db.knex.raw('CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END'),
  });
  // Another daemon (or this one, restarted) can take them now.
  if (released > 0) await announceWork(db);
  return released;
}
