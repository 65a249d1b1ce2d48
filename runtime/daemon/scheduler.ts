/**
 * The scheduler: enqueues one item per slot of every scheduled sync and flow (schedule-slots.ts).
 * Every scheduler process sees the same slots come due and calls enqueueSlot; the slot's unique
 * key lets one insert win, so a slot runs once however many processes run a scheduler.
 *
 * At start, a schedule that ran before (lastSlots) and missed slots while no scheduler ran gets
 * the latest missed slot enqueued — one catch-up run, not one per missed slot. A schedule that
 * never ran waits for its next slot: deploying a nightly sync at noon does not run it at noon.
 *
 * On a snapshot swap the schedules are read again: a schedule that is kept keeps its place, a new
 * or changed one waits for its next slot, a removed one stops.
 */
import type { Snapshot } from '../../definitions/snapshot.js';
import type { Schedule } from '../../definitions/types.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { concurrencyOf } from '../execution/concurrency-of.js';
import { attemptsOf } from '../execution/retry-of.js';
import type { Logger } from '../log.js';
import { enqueueSlot, lastSlots } from '../queue/schedule-slot.js';
import { slotClock, type SlotClock } from './schedule-slots.js';
import { WakeSignal } from '../execution/wake-signal.js';

export interface SchedulerOptions {
  db: RuntimeDatabase;
  log: Logger;
  /** The current definitions. */
  snapshot: () => Snapshot;
  /** Calls the listener on every snapshot swap; answers how to stop listening. */
  onSwap?: (listener: () => void) => () => void;
  /** Longest sleep, in ms, so a far slot or a clock change is never missed by much (default 60 s). */
  maxSleepMs?: number;
}

export interface Scheduler {
  stop(): Promise<void>;
}

interface Plan {
  processId: string;
  clock: SlotClock;
  maxAttempts: number;
  /** The latest slot this scheduler has enqueued (or found already passed). */
  done: Date;
}

/** A failed enqueue is tried again this soon (a database restart is not a missed slot). */
const retryMs = 1000;

function schedules(snapshot: Snapshot): Array<{ processId: string; schedule: Schedule; maxAttempts: number }> {
  const found: Array<{ processId: string; schedule: Schedule; maxAttempts: number }> = [];
  for (const [processId, sync] of snapshot.syncs) {
    if (sync.definition.schedule !== undefined)
      found.push({ processId, schedule: sync.definition.schedule, maxAttempts: attemptsOf(snapshot, processId) });
  }
  for (const [processId, flow] of snapshot.flows) {
    if (flow.definition.schedule !== undefined)
      found.push({ processId, schedule: flow.definition.schedule, maxAttempts: attemptsOf(snapshot, processId) });
  }
  return found;
}

export async function startScheduler(options: SchedulerOptions): Promise<Scheduler> {
  const { db, log } = options;
  const maxSleepMs = options.maxSleepMs ?? 60_000;
  const wake = new WakeSignal();
  let plans = new Map<string, Plan>();
  let stopping = false;

  /** Plans for the snapshot's schedules; kept ones keep their progress, `previous` slots are caught up from. */
  const plan = (snapshot: Snapshot, recorded: ReadonlyMap<string, Date>): Map<string, Plan> => {
    const now = new Date();
    const next = new Map<string, Plan>();
    for (const { processId, schedule, maxAttempts } of schedules(snapshot)) {
      let clock: SlotClock;
      try {
        clock = slotClock(schedule);
      } catch (error) {
        log.error({ err: error, processId }, 'schedule cannot be computed; it is skipped');
        continue;
      }
      const kept = plans.get(processId);
      if (kept !== undefined && kept.clock.key === clock.key) {
        // The same object, so an enqueue under way meanwhile still advances it.
        kept.maxAttempts = maxAttempts;
        next.set(processId, kept);
        continue;
      }
      const latest = clock.latestAtOrBefore(now);
      const last = recorded.get(processId);
      // Catch up once when the schedule ran before and its latest due slot is newer than what ran.
      const catchUp = latest !== null && last !== undefined && latest > last;
      const done = catchUp ? last : (latest ?? now);
      next.set(processId, { processId, clock, maxAttempts, done });
    }
    return next;
  };

  const enqueueDue = async (): Promise<number> => {
    const now = new Date();
    let sleepMs = maxSleepMs;
    for (const current of plans.values()) {
      const slot = current.clock.latestAtOrBefore(now);
      if (slot !== null && slot > current.done) {
        try {
          const concurrency = concurrencyOf(options.snapshot(), current.processId);
          const { item, created } = await enqueueSlot(db, {
            processId: current.processId,
            startType: current.clock.startType,
            maxAttempts: current.maxAttempts,
            slotAt: slot,
            ...(concurrency === undefined ? {} : { concurrency }),
          });
          current.done = slot;
          if (created) log.info({ processId: current.processId, slot: slot.toISOString(), itemId: item.id }, 'scheduled item enqueued');
        } catch (error) {
          log.error(
            { err: error, processId: current.processId, slot: slot.toISOString() },
            `could not enqueue a scheduled slot; trying again in ${retryMs}ms`,
          );
          sleepMs = Math.min(sleepMs, retryMs);
          continue;
        }
      }
      const next = current.clock.nextAfter(current.done > now ? current.done : now);
      if (next !== null) sleepMs = Math.min(sleepMs, next.getTime() - Date.now());
    }
    return Math.max(sleepMs, 1);
  };

  // Read what ran before once; a database that is down at start means no catch-up, not no scheduler.
  let recorded: Map<string, Date> = new Map();
  try {
    recorded = await lastSlots(db);
  } catch (error) {
    log.error({ err: error }, 'cannot read the last scheduled slots; missed slots are not caught up');
  }
  plans = plan(options.snapshot(), recorded);
  const stopListening = options.onSwap?.(() => {
    plans = plan(options.snapshot(), new Map());
    wake.wake();
  });
  log.info({ schedules: [...plans.keys()] }, 'scheduler started');

  const loop = (async () => {
    while (!stopping) {
      const sleepMs = await enqueueDue();
      if (!stopping) await wake.sleep(sleepMs);
    }
  })();

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        stopping = true;
        stopListening?.();
        wake.wake();
        await loop;
      })();
      return stopped;
    },
  };
}
