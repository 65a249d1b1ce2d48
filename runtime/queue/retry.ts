/**
 * A failed attempt: back to Pending after a backoff while attempts remain, else Failed for good.
 * Attempts are counted when claimed, so after the attempt that used the last one the item fails.
 * The wait doubles per failed attempt, from the sync's `retries.backoff` up to `retries.maxBackoff`,
 * and is then spread by ±20% at random (jitter): items that failed together — every sync of a
 * system that went down — would otherwise all come back at the same moment and hit the system
 * together again. ±20% rather than "full jitter" (anywhere from 0 to the wait): the configured
 * backoff stays what an operator can count on — on average the wait, never under 80% of it — and
 * the spread is still wide enough to break up a crowd. Never longer than `maxBackoff`: at the cap
 * the spread goes downwards only.
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
  /** The random spread of a wait, as a fraction of it (default `retryJitter`); 0 waits exactly. */
  jitter?: number;
}

/** The default spread of a retry's wait: ±20%. */
export const retryJitter = 0.2;

export type FailOutcome = { status: 'Pending'; runAfter: Date } | { status: 'Failed' };

/**
 * The wait after `failedAttempts` failures (1 = the first): backoff · 2^(failedAttempts−1) ·
 * (1 ± jitter), at most maxBackoff. `random` is a number in [0, 1), Math.random's.
 */
export function retryDelayMs(failedAttempts: number, policy: RetryPolicy, random: number = Math.random()): number {
  const doubled = Math.min(policy.backoffMs * 2 ** Math.max(0, failedAttempts - 1), policy.maxBackoffMs);
  const jitter = policy.jitter ?? retryJitter;
  return Math.round(Math.min(doubled * (1 - jitter + 2 * jitter * random), policy.maxBackoffMs));
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
