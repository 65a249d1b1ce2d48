/**
 * A synchronous start (StartProcessDirect, ExecuteProcess): the item is inserted already held by
 * this process, run here, and answered when it ends — or, past the synchronous time limit, answered
 * as it stands while the run goes on. The run is never tied to the request: a caller who gives up
 * or times out does not stop it, and its outcome is recorded on the item for GetAction.
 */
import type { Snapshot } from '../../definitions/snapshot.js';
import { runHeldItem, type ItemRunner } from '../execution/run-held-item.js';
import type { NewQueueItem } from '../queue/enqueue.js';
import { getItem } from '../queue/get-item.js';
import type { QueueRow } from '../queue/queue-item.js';
import { startItem } from '../queue/start-item.js';

export interface DirectRun {
  /** False when the time limit passed first; `item` is then the item as it stood (InProgress). */
  finished: boolean;
  item: QueueRow;
}

type Settled = { item: QueueRow } | { error: unknown };

export async function runDirect(runner: ItemRunner, snapshot: Snapshot, item: NewQueueItem, timeLimitMs: number): Promise<DirectRun> {
  const held = await startItem(runner.db, item, { workerId: runner.workerId, leaseMs: runner.leaseMs });
  // The run uses the definitions the request was checked against, even if a reload comes meanwhile.
  const pinned: ItemRunner = { ...runner, snapshot: () => snapshot };
  const settled: Promise<Settled> = runHeldItem(pinned, held).then(
    (finished) => ({ item: finished }),
    (error: unknown) => ({ error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, timeLimitMs, undefined);
  });
  const first = await Promise.race([settled, limit]);
  clearTimeout(timer);
  if (first !== undefined) {
    if ('error' in first) throw first.error;
    return { finished: true, item: first.item };
  }
  // Nobody waits for the rest of the run: its failure (a bug; failed runs are recorded, not thrown) goes to the log.
  void settled.then((late) => {
    if ('error' in late) runner.log.error({ err: late.error, queueId: held.id, processId: held.processId }, 'a direct run that outlived its request failed');
  });
  return { finished: false, item: (await getItem(runner.db, held.id)) ?? held };
}
