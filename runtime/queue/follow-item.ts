/**
 * Following one item as it runs, for the server-sent event streams of the API: the item is read
 * again every `intervalMs` with getItem's query, and each read that differs from the one before
 * (status, attempts, statistics, errors, times) is yielded, until the item is Complete or Failed.
 *
 *   SELECT * FROM queue_items WHERE id = ?
 *
 * Polling, not notifications: the item may be run by a `syncline daemon` in another process, and
 * only PostgreSQL can signal across processes (notify.ts); on SQLite and MariaDB polling is the
 * only way, and one way for every engine keeps the streams' behaviour the same. A progress report
 * is stored every third of a lease (run-held-item.ts), so polling faster would find nothing new.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RuntimeDatabase } from '../database/open-database.js';
import { getItem } from './get-item.js';
import { queueItemJson, type QueueRow } from './queue-item.js';

export interface FollowOptions {
  /** Pause between two reads, in ms. */
  intervalMs: number;
  /** Stops following (the client went away, the stream's time is up): the generator just returns. */
  signal: AbortSignal;
}

export function isFinished(item: QueueRow): boolean {
  return item.status === 'Complete' || item.status === 'Failed';
}

/**
 * The item's versions after `first`, each one that changed, the last one finished. Returns without
 * a finished version when the signal aborts or the item is gone (pruned past the retention).
 */
export async function* followItem(db: RuntimeDatabase, first: QueueRow, { intervalMs, signal }: FollowOptions): AsyncGenerator<QueueRow> {
  // Compared as the API shows it: a change the client could not see is no event.
  let shown = JSON.stringify(queueItemJson(first));
  let finished = isFinished(first);
  while (!finished && !signal.aborted) {
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      return;
    }
    const item = await getItem(db, first.id);
    if (item === undefined || signal.aborted) return;
    const now = JSON.stringify(queueItemJson(item));
    if (now === shown) continue;
    shown = now;
    finished = isFinished(item);
    yield item;
  }
}
