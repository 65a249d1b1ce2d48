/**
 * The sync engine's entry point (process-run.ts): a start's processId names a sync or a flow of
 * the run's snapshot; anything else fails at once, not retried (no retry can make it exist).
 */
import type { RunProcess } from '../execution/process-run.js';
import { runFlow } from './run-flow.js';
import { runSync } from './run-sync.js';

export const runProcess: RunProcess = async (environment, start) => {
  const sync = environment.snapshot.syncs.get(start.processId);
  if (sync !== undefined) {
    const { recordStore: _used, ...outcome } = await runSync(environment, start, sync);
    return outcome;
  }
  const flow = environment.snapshot.flows.get(start.processId);
  if (flow !== undefined) return runFlow(environment, start, flow);
  return {
    status: 'Failed',
    statistics: { read: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
    errors: [{ message: `there is no sync or flow '${start.processId}' in the loaded definitions` }],
    retryable: false,
  };
};
