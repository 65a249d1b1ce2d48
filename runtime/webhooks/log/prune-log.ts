/**
 * Retention of the webhook log: a webhook's unpinned entries older than its `logRetention` are
 * deleted, in batches, so no statement holds many locks for long:
 *
 *   SELECT id FROM webhook_log WHERE webhook_id = ? AND pinned = false AND at < ? LIMIT ?
 *   DELETE FROM webhook_log WHERE id IN (?, …) AND pinned = false
 *
 * (ids first, as queue/prune.ts does, because MariaDB cannot delete from a table it selects from
 * in a subquery.) `pinned = false` is repeated in the DELETE so an entry pinned in between stays.
 *
 * Pruning runs on write (record-call.ts), not in the daemon: webhooks are served by `serve`
 * processes that may run without a daemon (--no-daemon), and the retention is per webhook, known
 * where the call is recorded. `due` keeps that cheap: a webhook is pruned at most once per
 * hundredth of its retention, and at most once a minute.
 */
import type { RuntimeDatabase } from '../../database/open-database.js';
import { toDatabaseTime } from '../../database/timestamps.js';

export interface PruneLogOptions {
  webhookId: string;
  retentionMs: number;
  now?: Date;
  /** Entries deleted per statement (default 500). */
  batchSize?: number;
  /** Most batches in one go (default 20); what is left waits for the next prune. */
  maxBatches?: number;
}

/** Deletes the webhook's unpinned entries past the retention; answers how many. */
export async function pruneWebhookLog(db: RuntimeDatabase, options: PruneLogOptions): Promise<number> {
  const now = options.now ?? new Date();
  const cutoff = toDatabaseTime(db.dialect, new Date(now.getTime() - options.retentionMs));
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const rows = (await db
      .knex('webhook_log')
      .select('id')
      .where({ webhook_id: options.webhookId, pinned: false })
      .andWhere('at', '<', cutoff)
      .limit(batchSize)) as Array<{ id: string }>;
    if (rows.length === 0) break;
    deleted += await db
      .knex('webhook_log')
      .whereIn(
        'id',
        rows.map((row) => String(row.id)),
      )
      .andWhere({ pinned: false })
      .delete();
    if (rows.length < batchSize) break;
  }
  return deleted;
}

const lastPruned = new Map<string, number>();

/**
 * Whether this process should prune the webhook's log now, and if so notes that it does. Kept in
 * memory per process: several processes each pruning once in a while is harmless, only slower.
 */
export function pruneDue(webhookId: string, retentionMs: number, nowMs: number): boolean {
  const interval = Math.min(60_000, Math.max(0, retentionMs / 100));
  const last = lastPruned.get(webhookId);
  if (last !== undefined && nowMs - last < interval) return false;
  lastPruned.set(webhookId, nowMs);
  return true;
}
