/**
 * The runs a webhook case's call queued (startSync), run to their end in this process before the
 * case compares rows, so `expect.systems` shows what the sync did: each item is claimed from the
 * scratch runtime database and run by `runHeldItem`, the very path of `syncline run` and the
 * daemon, against the scratch systems. An attempt that fails and may be retried is not waited for:
 * its item stays Pending, and the case says so.
 *
 * Each run is told as lines the case's ticker goes on with, as the console's test dialog goes on
 * streaming a queued run after the call's own ticker:
 *
 *   run: crm-customers-to-erp Complete (read 1, created 1, updated 0, skipped 0, failed 0)
 *   run error: [3] Account.Email: expected text, got an object
 */
import { newWorkerId } from '../../daemon/worker-id.js';
import { runHeldItem } from '../../execution/run-held-item.js';
import { claim } from '../../queue/claim.js';
import { noStatistics, type QueueRow } from '../../queue/queue-item.js';
import { runProcess } from '../../sync/run-process.js';
import type { Scratch } from '../scratch/scratch-runtime.js';

/** The story of one queued run. */
export interface QueuedRun {
  lines: string[];
  /** Ended Complete with no failed record. */
  clean: boolean;
}

/** Long enough that no heartbeat is missed by a case's run. */
const leaseMs = 30_000;
/** A flow or sync does not queue more items, but a loop must end: no case queues this many. */
const mostItems = 1000;

export async function runQueued(scratch: Scratch, signal?: AbortSignal): Promise<QueuedRun[]> {
  const workerId = newWorkerId('test');
  const runner = {
    db: scratch.db,
    snapshot: () => scratch.snapshot,
    connections: scratch.connections,
    log: scratch.log,
    runProcess,
    workerId,
    leaseMs,
  };
  const runs: QueuedRun[] = [];
  while (runs.length < mostItems && !signal?.aborted) {
    const items = await claim(scratch.db, { workerId, limit: 10, leaseMs });
    if (items.length === 0) break;
    for (const item of items) runs.push(told(await runHeldItem(runner, item, signal === undefined ? {} : { signal })));
  }
  return runs;
}

function told(item: QueueRow): QueuedRun {
  const statistics = item.statistics ?? noStatistics;
  const status = item.status === 'Pending' ? 'Failed (its attempt failed; the queue would retry it later)' : item.status;
  const counts = `read ${statistics.read}, created ${statistics.created}, updated ${statistics.updated}, skipped ${statistics.skipped}, failed ${statistics.failed}`;
  return {
    lines: [
      `run: ${item.processId} ${status} (${counts})`,
      ...item.errors.map((error) => `run error: ${error.sourceId === undefined ? '' : `[${error.sourceId}] `}${error.message}`),
    ],
    clean: item.status === 'Complete' && statistics.failed === 0,
  };
}
