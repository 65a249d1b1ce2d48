/**
 * Heartbeat: a worker extends the lease of the items it still holds, and learns which those are
 * (an item missing from the answer was reaped after its lease ran out: its run must stop).
 *
 *   UPDATE queue_items SET lease_until = ?
 *    WHERE locked_by = ? AND status = 'InProgress' [AND id IN (?, …)]
 *   SELECT id FROM queue_items
 *    WHERE locked_by = ? AND status = 'InProgress' [AND id IN (?, …)]
 *
 * An expired lease that nobody reaped yet is extended: the item was never taken away.
 */
import type { Knex } from 'knex';
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';

export interface HeartbeatOptions {
  workerId: string;
  /** The items to extend (default: all the worker holds). */
  ids?: readonly string[];
  /** The new lease, from now, in ms. */
  leaseMs: number;
  now?: Date;
}

/** Extends the worker's leases; answers the ids it still holds. */
export async function heartbeat(db: RuntimeDatabase, options: HeartbeatOptions): Promise<string[]> {
  if (options.ids !== undefined && options.ids.length === 0) return [];
  const now = options.now ?? new Date();
  const held = (query: Knex.QueryBuilder) => {
    query.where({ locked_by: options.workerId, status: 'InProgress' });
    if (options.ids !== undefined) query.whereIn('id', [...options.ids]);
    return query;
  };
  await held(db.knex('queue_items')).update({ lease_until: toDatabaseTime(db.dialect, new Date(now.getTime() + options.leaseMs)) });
  const rows = (await held(db.knex('queue_items').select('id'))) as Array<{ id: string }>;
  return rows.map((row) => String(row.id));
}
