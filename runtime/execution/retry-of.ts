/**
 * How a sync or flow is retried, from the current definitions, in one place: the queue routes,
 * the scheduler and a webhook's startSync enqueue with `attemptsOf`, and the run of a held item
 * waits `retryPolicyOf` after a failed attempt.
 *
 * A sync says it in `retries` (the schema fills in its defaults). A flow has no retry settings of
 * its own: it gets one attempt, and should an item of it ever be retried (an item enqueued with
 * more attempts by an earlier version) it waits like a sync with the default `retries` of
 * sync.schema.json, read from there rather than restated.
 */
import { parseDuration } from '../../definitions/duration.js';
import { defaultSyncRetries } from '../../definitions/schema/kind-schemas.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { RetryPolicy } from '../queue/retry.js';

/** The wait of a process without retry settings (a flow): the default `retries` of a sync. */
export const defaultRetryPolicy: Readonly<RetryPolicy> = Object.freeze({
  backoffMs: parseDuration(defaultSyncRetries.backoff)!,
  maxBackoffMs: parseDuration(defaultSyncRetries.maxBackoff)!,
});

/** Attempts in all for a new item of the process: a sync's `retries.max` + 1; a flow's (or an unknown id's) one. */
export function attemptsOf(snapshot: Snapshot, processId: string): number {
  const sync = snapshot.syncs.get(processId);
  return sync === undefined ? 1 : sync.definition.retries.max + 1;
}

/** The wait after a failed attempt of the process; undefined for an id that is neither a sync nor a flow. */
export function retryPolicyOf(snapshot: Snapshot, processId: string): RetryPolicy | undefined {
  const sync = snapshot.syncs.get(processId);
  if (sync !== undefined) {
    const { retries } = sync.definition;
    return {
      backoffMs: parseDuration(retries.backoff) ?? defaultRetryPolicy.backoffMs,
      maxBackoffMs: parseDuration(retries.maxBackoff) ?? defaultRetryPolicy.maxBackoffMs,
    };
  }
  return snapshot.flows.has(processId) ? defaultRetryPolicy : undefined;
}
