/**
 * The sync engine's entry point (process-run.ts): a start's processId names a sync or a flow of
 * the run's snapshot; anything else fails at once, not retried (no retry can make it exist).
 *
 * A sync that reads its record store deletes, after a Complete run, the entries it read and wrote
 * without failure — as a flow does after its steps — so the next run does not read them again
 * and the store does not grow with every webhook call. Failed records stay for another try.
 */
import type { RunProcess } from '../execution/process-run.js';
import { deleteRecords } from '../record-store/delete-records.js';
import { runFlow } from './run-flow.js';
import { runSync } from './run-sync.js';

export const runProcess: RunProcess = async (environment, start) => {
  const sync = environment.snapshot.syncs.get(start.processId);
  if (sync !== undefined) {
    const { recordStore, ...outcome } = await runSync(environment, start, sync);
    if (outcome.status === 'Complete' && recordStore.read.length > 0) {
      const failed = new Set(recordStore.failed);
      const done = recordStore.read.filter((guid) => !failed.has(guid));
      try {
        await deleteRecords(environment.db, done, sync.definition.id);
      } catch (error) {
        // Read again next time: writes are upserts by match, so that costs time, not correctness.
        environment.log?.warn(
          { sync: sync.definition.id, err: error },
          'could not delete the record-store entries this run used; the next run reads them again',
        );
      }
    }
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
