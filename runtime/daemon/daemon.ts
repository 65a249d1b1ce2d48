/**
 * The queue daemon: claims due items up to a concurrency limit and runs each with runHeldItem;
 * reaps items of lost workers; prunes finished items past their retention age.
 *
 * It claims as many items as it has free slots, plus a few for its buffer (below), in one batch,
 * and sleeps until work may be due:
 * woken by listenForWork (enqueues in this process; NOTIFY on PostgreSQL, also sent when a run
 * under a concurrency limit ends) and by a finished item (a slot came free), otherwise after the
 * poll interval, or sooner when the next backed-off item comes due. Items waiting for room under
 * their concurrency limit wait for such a wake-up, not for a time. Database errors are logged and the loop goes on after a growing pause: a daemon
 * outlives a database restart.
 *
 * The buffer: when items end quickly, a slot that comes free would wait for a claim's round trip
 * before its next item starts, and each claim would take one item. So a busy daemon claims up to
 * `prefetch` items more than its free slots, held like any claimed item (they count against their
 * concurrency keys, since they are InProgress), and starts one of them the moment a slot frees.
 * It asks for as many extra items as it started within the buffer's longest wait, at most
 * `prefetch`: a daemon whose items run long buffers nothing and leaves the items to idle daemons.
 * With every slot busy, it claims again once half the buffer is used, so the buffer's size sets
 * how many items a claim takes, and a claim costs the database mostly per call: hence a default of
 * four buffered items per slot (settings.ts, prefetchPerSlot).
 * Last attempts are never buffered (handBackLastAttempts says why).
 * A buffered item waits at most `bufferWaitMs` (a second; a tenth of the lease when shorter):
 * then it is released for any daemon to take. Since that is far less than the lease, and a
 * started run's heartbeats renew its lease from a third of the lease after its start, no lease
 * runs out while an item waits, so buffered items need no heartbeat of their own. An item started
 * from the buffer stores its real start with its end (run-held-item.ts `startedLate`), so its
 * StartedDate is its claim's time, at most bufferWaitMs early, only while it runs.
 *
 * A slot frees when its run is over, not when the run's end is recorded: the next item starts
 * while the end is written, together with other ends (complete-together.ts). Until then the item
 * is InProgress in the database a moment longer, still counted under its concurrency limit.
 *
 * stop(): no more claims; buffered items are released at once, in one statement; running items
 * get the drain time to finish, then they are aborted, and once their runs are over whatever is
 * still held is released (Pending again, the interrupted attempt not counted); ends still being
 * recorded are waited for.
 */
import { setMaxListeners } from 'node:events';
import type { ItemRunner } from '../execution/run-held-item.js';
import { repeatEvery, type Repeating } from '../execution/repeat-every.js';
import { runHeldItem } from '../execution/run-held-item.js';
import { claim } from '../queue/claim.js';
import { listenForWork, type WorkListener } from '../queue/notify.js';
import { prune } from '../queue/prune.js';
import { nextDueAfter } from '../queue/queue-summary.js';
import { reap } from '../queue/reap.js';
import type { QueueRow } from '../queue/queue-item.js';
import { release } from '../queue/release.js';
import { defaultPrefetch, queueDefaults } from '../settings.js';
import { WakeSignal } from '../execution/wake-signal.js';

export interface DaemonOptions {
  /** Runs the claimed items; its workerId and leaseMs are the daemon's. */
  runner: ItemRunner;
  /** Items run at once (default queueDefaults.concurrency). */
  concurrency?: number;
  /** Most items claimed ahead of free slots, into the buffer (default: settings.ts defaultPrefetch; 0: none). */
  prefetch?: number;
  /** Longest idle sleep, in ms (default queueDefaults.pollIntervalMs). */
  pollIntervalMs?: number;
  /** Between reaper runs, in ms (default: half the lease, so a lost item waits at most 1.5 leases). */
  reapIntervalMs?: number;
  /** Finished items older than this are deleted, in ms (default queueDefaults.retentionMs). */
  retentionMs?: number;
  /** Between prunes, in ms (default one hour; the first runs at start). */
  pruneIntervalMs?: number;
  /** On stop, how long running items may take to finish, in ms (default queueDefaults.drainMs). */
  drainMs?: number;
}

export interface Daemon {
  readonly workerId: string;
  /** Items running now. */
  readonly running: number;
  /** How many items it runs at once at most. */
  readonly concurrency: number;
  /** The claim loop, for liveness (daemon-liveness.ts). */
  readonly loop: ClaimLoopState;
  /** Stops claiming, drains, interrupts and releases; resolves when all is settled. Safe to call twice. */
  stop(): Promise<void>;
}

/** Where the claim loop is: when it last went round, and whether it was told to stop. */
export interface ClaimLoopState {
  /** When the loop last finished a look at the queue (or its start), in ms since the epoch. */
  readonly tickedAt: number;
  /** Longest sleep between two looks, in ms (its poll interval). */
  readonly pollIntervalMs: number;
  /** Stopping or stopped: the loop ends on purpose. */
  readonly stopping: boolean;
  /** Set when the loop ended without being stopped (a bug; every error in it is caught). */
  readonly failure: unknown;
}

/** Longest pause after repeated database errors. */
export const maxErrorPauseMs = 30_000;
/**
 * After aborting, how long runs get to notice before the daemon says it still waits for them. It
 * waits on: an item is released only once its run is over, since a run may be in the middle of a
 * write its database has not answered yet — released earlier, another daemon would run the item
 * while that write still commits (two runs of one item at once: a match cannot keep them from
 * both creating the record). A run that never ends keeps the process up until it is killed; then
 * the item's lease runs out and a reaper returns it.
 */
const abortGraceMs = 2000;

export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { runner } = options;
  const { db, log, workerId } = runner;
  const concurrency = options.concurrency ?? queueDefaults.concurrency;
  const prefetch = options.prefetch ?? defaultPrefetch(concurrency);
  const bufferWaitMs = Math.min(1000, runner.leaseMs / 10);
  const pollIntervalMs = options.pollIntervalMs ?? queueDefaults.pollIntervalMs;
  const drainMs = options.drainMs ?? queueDefaults.drainMs;
  const retentionMs = options.retentionMs ?? queueDefaults.retentionMs;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`daemon: concurrency must be a whole number of at least 1, not ${concurrency}`);
  if (!Number.isInteger(prefetch) || prefetch < 0)
    throw new RangeError(`daemon: prefetch must be a whole number of at least 0, not ${prefetch}`);

  const wake = new WakeSignal();
  /** Runs in progress by item id and attempt: each holds a slot until its run is over. */
  const running = new Map<string, { done: Promise<void>; id: string }>();
  /** Interrupts every run at once, when the drain time is over: one signal for all, not one per item. */
  const interruptRuns = new AbortController();
  setMaxListeners(0, interruptRuns.signal);
  /** Every item this daemon started whose end is not recorded yet (running, or over and being recorded), by its run. */
  const unsettled = new Map<Promise<void>, string>();
  /** Claimed items waiting for a free slot, in claim order, with when they were claimed (ms). */
  const buffered: Array<{ item: QueueRow; claimedAt: number }> = [];
  /** When recent runs started (ms), those within bufferWaitMs: how many items the buffer may want. */
  const recentStarts: number[] = [];
  let stopping = false;
  const loopState = { tickedAt: Date.now(), pollIntervalMs, stopping: false, failure: undefined as unknown };

  let listener: WorkListener | undefined;
  try {
    listener = await listenForWork(db, () => wake.wake(), {
      onError: (error) => log.warn({ err: error }, 'queue notifications lost; reconnecting, polling meanwhile'),
    });
  } catch (error) {
    // Polling still finds the work, only later.
    log.warn({ err: error }, `cannot listen for queue notifications; polling every ${pollIntervalMs}ms instead`);
  }

  const start = (item: QueueRow, startedLate: boolean): void => {
    const runKey = `${item.id}#${item.attempts}`;
    recentStarts.push(Date.now());
    // The slot frees when the run is over; its end is recorded meanwhile, in a write shared with
    // other ends (complete-together.ts), while the next item already runs.
    let slotFreed = false;
    const freeSlot = (): void => {
      if (slotFreed) return;
      slotFreed = true;
      // Only this run's own entry: the same item may have been reaped and claimed again meanwhile.
      running.delete(runKey);
      startBuffered();
      wake.wake();
    };
    const done: Promise<void> = runHeldItem(runner, item, {
      signal: interruptRuns.signal,
      reread: false,
      startedLate,
      onRunEnded: freeSlot,
    })
      .then(() => undefined)
      .catch((error: unknown) => {
        // Recording the end failed (the database went away): the lease runs out and the reaper retries the item.
        log.error(
          { err: error, itemId: item.id, processId: item.processId },
          'could not record the end of an item; the reaper will return it',
        );
      })
      .finally(() => {
        freeSlot();
        unsettled.delete(done);
      });
    running.set(runKey, { done, id: item.id });
    unsettled.set(done, item.id);
  };

  /** Starts buffered items in the free slots, unless stopping (stop() releases them). */
  const startBuffered = (): void => {
    while (!stopping && running.size < concurrency && buffered.length > 0) start(buffered.shift()!.item, true);
  };

  /** How many items the buffer should hold: as many as started within its longest wait, at most `prefetch`. */
  const bufferWanted = (): number => {
    const since = Date.now() - bufferWaitMs;
    while (recentStarts.length > 0 && recentStarts[0]! < since) recentStarts.shift();
    return Math.min(prefetch, recentStarts.length);
  };

  /** Releases buffered items that waited past bufferWaitMs (all of them with `all`), so any daemon may take them. */
  const releaseBuffered = async (all: boolean): Promise<void> => {
    const since = Date.now() - bufferWaitMs;
    const stale = all ? buffered.length : buffered.findIndex((entry) => entry.claimedAt >= since);
    const count = stale === -1 ? buffered.length : stale;
    if (count === 0) return;
    const ids = buffered.splice(0, count).map((entry) => entry.item.id);
    await release(db, { workerId, ids });
  };

  /**
   * Last attempts are never buffered. An item's attempt is counted when it is claimed, and the
   * items of a daemon that dies (kill -9, out of memory) are reaped with that attempt counted, run
   * or not: a buffered last attempt — an item without retries, every flow item — would fail
   * without ever having run. So the last attempts a claim brings beyond the free slots go back at
   * once, their attempt given back (release.ts), and while the line holds such items this daemon
   * claims only for its free slots, as without a buffer; a claim without any last attempt turns
   * the buffer back on. Items with retries left may wait in the buffer: a crash costs them an
   * attempt, never their run.
   */
  let lastAttemptsAhead = false;
  const handBackLastAttempts = async (claimed: readonly QueueRow[]): Promise<void> => {
    const waiting = buffered.filter((entry) => isLastAttempt(entry.item));
    if (claimed.length > 0) lastAttemptsAhead = waiting.length > 0 || (lastAttemptsAhead && claimed.some(isLastAttempt));
    if (waiting.length === 0) return;
    for (const entry of waiting) buffered.splice(buffered.indexOf(entry), 1);
    await release(db, { workerId, ids: waiting.map((entry) => entry.item.id) });
  };

  const claimLoop = async (): Promise<void> => {
    let errorPauseMs = pollIntervalMs;
    while (!stopping) {
      // Every round counts, one whose look failed too: the loop is alive, the database is readiness's concern.
      loopState.tickedAt = Date.now();
      let sleepMs = pollIntervalMs;
      try {
        startBuffered();
        await releaseBuffered(false);
        const free = concurrency - running.size;
        const target = lastAttemptsAhead ? 0 : bufferWanted();
        const wanted = free + target - buffered.length;
        // With every slot busy, the buffer is refilled once half of it is used, so the next
        // items are on hand before it runs dry.
        if (wanted > 0 && (free > 0 || buffered.length * 2 <= target)) {
          // Every item due by now is seen by the claim (which takes its own time a little later).
          const lookedAt = new Date();
          const items = await claim(db, { workerId, limit: wanted, leaseMs: runner.leaseMs });
          if (stopping) {
            await release(db, { workerId, ids: items.map((item) => item.id) });
            break;
          }
          const claimedAt = Date.now();
          // Last attempts first: they start now, in the free slots.
          for (const item of items) if (isLastAttempt(item)) buffered.push({ item, claimedAt });
          for (const item of items) if (!isLastAttempt(item)) buffered.push({ item, claimedAt });
          startBuffered();
          await handBackLastAttempts(items);
          // A full batch may have left more due items behind: look again as soon as a slot is free.
          if (items.length === wanted) continue;
          // Due items it did not get wait for a place under their key, or came after the claim:
          // both are announced and wake the loop. What is not announced is a time coming due.
          const next = await nextDueAfter(db, lookedAt);
          if (next !== null) sleepMs = Math.min(sleepMs, Math.max(0, next.getTime() - Date.now()) + 5);
        }
        errorPauseMs = pollIntervalMs;
      } catch (error) {
        log.error({ err: error }, `the queue cannot be read; trying again in ${errorPauseMs}ms`);
        sleepMs = errorPauseMs;
        errorPauseMs = Math.min(errorPauseMs * 2, maxErrorPauseMs);
      }
      // A buffered item must not outwait bufferWaitMs by much: look again by then.
      if (buffered.length > 0) sleepMs = Math.min(sleepMs, Math.max(0, buffered[0]!.claimedAt + bufferWaitMs - Date.now()) + 5);
      if (!stopping) await wake.sleep(sleepMs);
    }
  };

  /** `task` on an interval, first at once; a failure is logged and the next run comes as planned. */
  const every = (intervalMs: number, name: string, task: () => Promise<void>): Repeating =>
    repeatEvery(
      intervalMs,
      () => task().catch((error: unknown) => log.error({ err: error }, `${name} failed; trying again in ${intervalMs}ms`)),
      { immediately: true },
    );

  const reaper = every(options.reapIntervalMs ?? Math.max(runner.leaseMs / 2, 100), 'reaping lost items', async () => {
    const reaped = await reap(db);
    if (reaped.pending.length + reaped.failed.length > 0)
      log.warn({ pending: reaped.pending, failed: reaped.failed }, 'reaped items of lost workers');
  });
  const pruner = every(options.pruneIntervalMs ?? 3_600_000, 'pruning finished items', async () => {
    const deleted = await prune(db, { retentionMs });
    if (deleted > 0) log.info({ deleted, retentionMs }, 'pruned finished items');
  });

  const loop = claimLoop().catch((error: unknown) => {
    loopState.failure = error;
    log.fatal({ err: error }, 'the claim loop ended unexpectedly; this daemon claims no more items');
  });
  log.info({ workerId, concurrency, prefetch, pollIntervalMs, leaseMs: runner.leaseMs, database: db.location.display }, 'daemon started');

  let stopped: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    stopping = true;
    loopState.stopping = true;
    wake.wake();
    await loop;
    await Promise.all([reaper.stop(), pruner.stop(), listener?.close()]);
    if (buffered.length > 0) {
      const ids = buffered.map((entry) => entry.item.id);
      try {
        await releaseBuffered(true);
        log.info({ released: ids.length }, 'released buffered items back to Pending');
      } catch (error) {
        // Their leases run out and a reaper returns them, with the attempt counted.
        log.error({ err: error, items: ids }, 'could not release buffered items; the reaper will return them');
      }
    }

    const all = () => Promise.allSettled([...running.values()].map((entry) => entry.done));
    if (running.size > 0) {
      log.info({ running: running.size, drainMs }, 'daemon stopping; waiting for running items');
      if (!(await within(all(), drainMs))) {
        // Ends still being recorded are interrupted too: the items they could not record yet are released.
        const interrupted = [...new Set(unsettled.values())];
        log.warn({ items: interrupted }, 'drain time over; interrupting running items and releasing them');
        interruptRuns.abort(new Error('the daemon is stopping'));
        if (!(await within(all(), abortGraceMs))) {
          log.warn(
            { items: [...running.values()].map((entry) => entry.id) },
            'runs not stopped yet (a write under way finishes first); their items are released once the runs are over',
          );
          await all();
        }
        try {
          const released = await release(db, { workerId, ids: interrupted });
          log.info({ released }, 'released interrupted items back to Pending');
        } catch (error) {
          // Their leases run out and a reaper returns them, with the attempt counted.
          log.error({ err: error, items: interrupted }, 'could not release interrupted items; the reaper will return them');
        }
      }
    }
    // Runs that are over may still be recording their ends (each gives up within half a lease).
    await Promise.allSettled([...unsettled.keys()]);
    log.info({ workerId }, 'daemon stopped');
  };

  return {
    workerId,
    get running() {
      return running.size;
    },
    concurrency,
    loop: loopState,
    stop() {
      stopped ??= stop();
      return stopped;
    },
  };
}

/** Whether the item's attempt, counted at its claim, is its last. */
function isLastAttempt(item: QueueRow): boolean {
  return item.attempts >= item.maxAttempts;
}

/** True when `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
