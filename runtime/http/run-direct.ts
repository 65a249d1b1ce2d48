/**
 * A synchronous start (StartProcessDirect, ExecuteProcess): the item is inserted already held by
 * this process, run here, and answered when it ends — or, past the synchronous time limit, answered
 * as it stands while the run goes on. The run is never tied to the request: a caller who gives up
 * or times out does not stop it, and its outcome is recorded on the item for GetAction.
 *
 * Runs still going when the process stops (`stopDirectRuns`, called by serve on SIGTERM) get the
 * drain time to finish; then they are interrupted and their items released to Pending with the
 * attempt given back, for a daemon to run — never left InProgress for the reaper to fail.
 *
 * The sync's concurrency limit holds here too: when its runs are at the limit, the item waits in
 * line (Pending) and this process claims it as soon as there is room (execution/await-turn.ts) —
 * or a daemon does, and the request follows that run — all within the same time limit. A start
 * refused by a skip or fail policy answers at once with that finished item.
 */
import type { Snapshot } from '../../definitions/snapshot.js';
import { awaitTurn, followUntilEnd } from '../execution/await-turn.js';
import { runHeldItem, type ItemRunner } from '../execution/run-held-item.js';
import type { NewQueueItem } from '../queue/enqueue.js';
import { getItem } from '../queue/get-item.js';
import { release } from '../queue/release.js';
import type { QueueRow } from '../queue/queue-item.js';
import { startItem } from '../queue/start-item.js';
import type { Logger } from '../log.js';

export interface DirectRun {
  /** False when the time limit passed first; `item` is then the item as it stood (InProgress, or Pending in line). */
  finished: boolean;
  item: QueueRow;
}

type Settled = { item: QueueRow } | { error: unknown };

/** Direct runs of this process that have not ended, by item id. */
const inFlight = new Map<string, { done: Promise<unknown>; controller: AbortController; runner: ItemRunner }>();

/** Runs the started item here: at once when held, after its turn when it waits in line; follows it when a daemon took it. */
async function runStarted(runner: ItemRunner, started: QueueRow, signal: AbortSignal): Promise<QueueRow> {
  let item = started;
  if (item.status === 'Pending')
    item = await awaitTurn(item, { db: runner.db, workerId: runner.workerId, leaseMs: runner.leaseMs, signal });
  if (item.status === 'InProgress' && item.lockedBy === runner.workerId) return runHeldItem(runner, item, { signal });
  if (item.status === 'Complete' || item.status === 'Failed' || signal.aborted) return item;
  return followUntilEnd(item, { db: runner.db, signal });
}

export async function runDirect(runner: ItemRunner, snapshot: Snapshot, item: NewQueueItem, timeLimitMs: number): Promise<DirectRun> {
  const held = await startItem(runner.db, item, { workerId: runner.workerId, leaseMs: runner.leaseMs });
  if (held.status === 'Complete' || held.status === 'Failed') return { finished: true, item: held };
  // The run uses the definitions the request was checked against, even if a reload comes meanwhile.
  const pinned: ItemRunner = { ...runner, snapshot: () => snapshot };
  const controller = new AbortController();
  const settled: Promise<Settled> = runStarted(pinned, held, controller.signal)
    .then(
      (finished) => ({ item: finished }),
      (error: unknown) => ({ error }),
    )
    .finally(() => inFlight.delete(held.id));
  inFlight.set(held.id, { done: settled, controller, runner });
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, timeLimitMs, undefined);
  });
  const first = await Promise.race([settled, limit]);
  clearTimeout(timer);
  if (first !== undefined) {
    if ('error' in first) throw first.error;
    // A run cut short by shutdown (or a wait in line it ended) is still going somewhere: not finished.
    return { finished: first.item.status === 'Complete' || first.item.status === 'Failed', item: first.item };
  }
  // Nobody waits for the rest of the run: its failure (a bug; failed runs are recorded, not thrown) goes to the log.
  void settled.then((late) => {
    if ('error' in late)
      runner.log.error(
        { err: late.error, queueId: held.id, processId: held.processId, ...(held.requestId ? { requestId: held.requestId } : {}) },
        'a direct run that outlived its request failed',
      );
  });
  // Read after the limit: the run may have ended in between, and then it is answered as finished.
  const now = (await getItem(runner.db, held.id)) ?? held;
  return { finished: now.status === 'Complete' || now.status === 'Failed', item: now };
}

/** How long interrupted runs get to wind down before their items are released anyway. */
const abortGraceMs = 2000;

/** Resolves true when `work` settles within `ms`, false otherwise. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([work.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(resolve, ms, false)))]);
  clearTimeout(timer);
  return settled;
}

/**
 * On shutdown: waits up to `drainMs` for the direct runs still going, then interrupts the rest,
 * gives them a short grace (a connector call may not heed the signal), and hands their items back
 * to the queue (Pending, attempt given back). Answers how many were released; never throws — a
 * database that fails here leaves the items to the reaper, and the shutdown goes on.
 */
export async function stopDirectRuns(drainMs: number, log?: Logger): Promise<number> {
  if (inFlight.size === 0) return 0;
  if (await within(Promise.allSettled([...inFlight.values()].map((run) => run.done)), drainMs)) return 0;
  const left = [...inFlight.entries()];
  for (const [, run] of left) run.controller.abort(new Error('the server is stopping'));
  await within(Promise.allSettled(left.map(([, run]) => run.done)), abortGraceMs);
  let released = 0;
  for (const [id, run] of left) {
    try {
      released += await release(run.runner.db, { workerId: run.runner.workerId, ids: [id] });
    } catch (error) {
      log?.error({ err: error, itemId: id }, 'could not release an interrupted direct run; the reaper will return it');
    }
  }
  return released;
}
