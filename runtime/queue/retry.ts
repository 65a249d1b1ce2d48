/**
 * A failed attempt: back to Pending after a backoff while attempts remain, else Failed for good.
 * Attempts are counted when claimed, so after the attempt that used the last one the item fails.
 * The wait doubles per failed attempt, from the sync's `retries.backoff` up to `retries.maxBackoff`.
 *
 * In one write transaction, like complete.ts:
 *   SELECT attempts, max_attempts, errors FROM queue_items
 *    WHERE id = ? AND locked_by = ? AND status = 'InProgress'  FOR UPDATE  (not on SQLite)
 *   attempts < max_attempts:
 *     UPDATE queue_items
 *        SET status = 'Pending', run_after = ?, locked_by = NULL, lease_until = NULL,
 *            started_at = NULL, statistics = ?, errors = ?
 *      WHERE id = ? AND locked_by = ? AND status = 'InProgress'
 *   else:
 *     UPDATE queue_items SET status = 'Failed', finished_at = ?, lease_until = NULL, statistics = ?, errors = ?
 *      WHERE id = ? AND locked_by = ? AND status = 'InProgress'
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { appendErrors, updateHeldItem, type AttemptResult } from './complete.js';

export interface RetryPolicy {
  /** Wait after the first failed attempt, in ms; doubled for each further one. */
  backoffMs: number;
  /** Longest wait, in ms. */
  maxBackoffMs: number;
}

export type FailOutcome = { status: 'Pending'; runAfter: Date } | { status: 'Failed' };

/** The wait after `failedAttempts` failures (1 = the first): backoff · 2^(failedAttempts−1), capped. */
export function retryDelayMs(failedAttempts: number, policy: RetryPolicy): number {
  const doubled = policy.backoffMs * 2 ** Math.max(0, failedAttempts - 1);
  return Math.min(doubled, policy.maxBackoffMs);
}

/** Records a failed attempt of the worker; undefined when the worker no longer holds the item. */
export async function failAttempt(db: RuntimeDatabase, result: AttemptResult & { retry: RetryPolicy }): Promise<FailOutcome | undefined> {
  const now = result.now ?? new Date();
  const time = (value: Date) => toDatabaseTime(db.dialect, value);
  return updateHeldItem<FailOutcome>(db, result, (held) => {
    const common = {
      lease_until: null,
      ...(result.statistics === undefined ? {} : { statistics: JSON.stringify(result.statistics) }),
      errors: JSON.stringify(appendErrors(held.errors, result.errors ?? [], now)),
    };
    if (held.attempts < held.maxAttempts) {
      const runAfter = new Date(now.getTime() + retryDelayMs(held.attempts, result.retry));
      return {
        values: { ...common, status: 'Pending', run_after: time(runAfter), locked_by: null, started_at: null },
        answer: { status: 'Pending', runAfter },
      };
    }
    return { values: { ...common, status: 'Failed', finished_at: time(now) }, answer: { status: 'Failed' } };
  });
}
