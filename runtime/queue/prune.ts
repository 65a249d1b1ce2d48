/**
 * Prune: delete finished items (Complete or Failed) that finished longer ago than the retention
 * age, in batches so no statement holds many locks for long.
 *
 *   SELECT id FROM queue_items
 *    WHERE status IN ('Complete', 'Failed') AND finished_at < ?
 *    LIMIT ?
 *   DELETE FROM queue_items WHERE id IN (?, …) AND status IN ('Complete', 'Failed')
 *
 * (MariaDB cannot delete from a table it selects from in a subquery, and only MariaDB has
 * DELETE … LIMIT everywhere, so ids are read first.) Repeated until a batch comes back short.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';

const finished = ['Complete', 'Failed'];

export interface PruneOptions {
  /** Keep items that finished less than this long ago, in ms. */
  retentionMs: number;
  now?: Date;
  /** Items deleted per statement (default 500). */
  batchSize?: number;
}

/** Deletes finished items older than the retention age; answers how many. */
export async function prune(db: RuntimeDatabase, options: PruneOptions): Promise<number> {
  if (!(options.retentionMs >= 0)) throw new RangeError(`prune: retentionMs must be zero or more, not ${options.retentionMs}`);
  const now = options.now ?? new Date();
  const cutoff = toDatabaseTime(db.dialect, new Date(now.getTime() - options.retentionMs));
  const batchSize = options.batchSize ?? 500;
  let deleted = 0;
  for (;;) {
    const rows = (await db
      .knex('queue_items')
      .select('id')
      .whereIn('status', finished)
      .andWhere('finished_at', '<', cutoff)
      .limit(batchSize)) as Array<{ id: string }>;
    if (rows.length === 0) break;
    deleted += await db
      .knex('queue_items')
      .whereIn(
        'id',
        rows.map((row) => String(row.id)),
      )
      .whereIn('status', finished)
      .delete();
    if (rows.length < batchSize) break;
  }
  return deleted;
}
