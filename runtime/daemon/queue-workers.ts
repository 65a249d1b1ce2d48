/**
 * What a process runs to work the queue: the daemon (claims and runs items, reaps, prunes) and
 * the scheduler (enqueues slots), started and stopped together. `syncline daemon` runs them
 * alone; `syncline serve` runs them beside the API unless --no-daemon.
 */
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { ItemRunner } from '../execution/run-held-item.js';
import type { QueueSettings } from '../settings.js';
import { startDaemon, type Daemon } from './daemon.js';
import { startScheduler, type Scheduler } from './scheduler.js';

export interface QueueWorkers {
  daemon: Daemon;
  scheduler: Scheduler;
  /** Stops scheduling first (no new slots), then the daemon (drain, release). */
  stop(): Promise<void>;
}

export async function startQueueWorkers(runner: ItemRunner, holder: SnapshotHolder, settings: QueueSettings): Promise<QueueWorkers> {
  const daemon = await startDaemon({
    runner,
    concurrency: settings.concurrency,
    pollIntervalMs: settings.pollIntervalMs,
    retentionMs: settings.retentionMs,
    drainMs: settings.drainMs,
  });
  const scheduler = await startScheduler({
    db: runner.db,
    log: runner.log,
    snapshot: () => holder.current,
    onSwap: (listener) => {
      holder.on('swap', listener);
      return () => void holder.off('swap', listener);
    },
  });
  return {
    daemon,
    scheduler,
    async stop() {
      await scheduler.stop();
      await daemon.stop();
    },
  };
}
