/**
 * The concurrency limit a new queue item of a sync or flow is enqueued under, from the current
 * definitions: the policy the sync or flow declares (the schema fills in limit 1, onLimit wait),
 * keyed by its group when it names one, else by its own id. Keys carry their kind, so a group can
 * never share a limit with a sync or flow that happens to have the group's name as its id.
 */
import type { Snapshot } from '../../definitions/snapshot.js';
import type { QueueConcurrency } from '../queue/queue-item.js';

/** The item's concurrency, or undefined for an id that is neither a sync nor a flow. */
export function concurrencyOf(snapshot: Snapshot, processId: string): QueueConcurrency | undefined {
  const policy = (snapshot.syncs.get(processId) ?? snapshot.flows.get(processId))?.definition.concurrency;
  if (policy === undefined) return undefined;
  return {
    key: policy.group === undefined ? `process:${processId}` : `group:${policy.group}`,
    limit: policy.limit,
    onLimit: policy.onLimit,
  };
}
