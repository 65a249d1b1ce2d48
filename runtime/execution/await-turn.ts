/**
 * A started item's turn. StartProcessDirect, ExecuteProcess and `syncline run` insert their item
 * and claim it at once (queue/start-item.ts); when its concurrency key is at its limit the item
 * waits Pending in line instead. The process that started it then tries to claim it again
 * whenever work may have come free — a run ending in this process announces that — and at
 * least every `pollMs` for runs ending in other processes. A daemon may take the item first;
 * then there is nothing to claim, and the item is followed until it ends.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { claim } from '../queue/claim.js';
import { getItem } from '../queue/get-item.js';
import { onLocalWork } from '../queue/notify.js';
import { reap } from '../queue/reap.js';
import type { QueueRow } from '../queue/queue-item.js';
import { WakeSignal } from './wake-signal.js';

export interface TurnOptions {
  db: RuntimeDatabase;
  workerId: string;
  leaseMs: number;
  /** Stops waiting; the item is answered as it stands (Pending stays Pending, for a daemon). */
  signal?: AbortSignal;
  /** Longest pause between looks (default 250 ms). */
  pollMs?: number;
}

/**
 * How often a waiting start takes back the items of workers that stopped renewing their leases
 * (queue/reap.ts), as daemons do — only those under its own concurrency key, the ones it waits
 * behind: with no daemon running, a killed `syncline run` left its item InProgress, and every
 * later start of that sync waited behind it for good. An item taken back with attempts left is
 * Pending again, ahead in line, for a daemon to run.
 */
const reapEveryMs = 2_000;

/** Waits until `item` (Pending) is held by `workerId` or taken by another worker; answers it as it then stands. */
export async function awaitTurn(item: QueueRow, options: TurnOptions): Promise<QueueRow> {
  let reapedAt = Date.now();
  return watch(item, options, async () => {
    const [claimed] = await claim(options.db, { workerId: options.workerId, leaseMs: options.leaseMs, limit: 1, ids: [item.id] });
    if (claimed !== undefined) return claimed;
    if (item.concurrencyKey !== null && Date.now() - reapedAt >= reapEveryMs) {
      reapedAt = Date.now();
      // Reaping announces the freed work, which wakes this wait to claim again. A reap that
      // fails (the database busy a moment) is tried again next time, as a daemon's is.
      await reap(options.db, { concurrencyKey: item.concurrencyKey }).catch(() => undefined);
    }
    const current = await getItem(options.db, item.id);
    return current === undefined || current.status !== 'Pending' ? (current ?? item) : undefined;
  });
}

/** Waits until `item` is Complete or Failed; answers it as it then stands. */
export async function followUntilEnd(item: QueueRow, options: Omit<TurnOptions, 'workerId' | 'leaseMs'>): Promise<QueueRow> {
  return watch(item, options, async () => {
    const current = await getItem(options.db, item.id);
    return current === undefined || current.status === 'Complete' || current.status === 'Failed' ? (current ?? item) : undefined;
  });
}

/** Calls `look` after every wake-up or pause until it answers a row, or the signal stops the wait. */
async function watch(
  item: QueueRow,
  options: Pick<TurnOptions, 'db' | 'signal' | 'pollMs'>,
  look: () => Promise<QueueRow | undefined>,
): Promise<QueueRow> {
  const wake = new WakeSignal();
  const stopListening = onLocalWork(options.db, () => wake.wake());
  const onAbort = (): void => wake.wake();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (options.signal?.aborted) return (await getItem(options.db, item.id)) ?? item;
      const found = await look();
      if (found !== undefined) return found;
      await wake.sleep(options.pollMs ?? 250);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stopListening();
  }
}
