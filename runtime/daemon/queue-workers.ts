/**
 * What a process runs to work the queue: the daemon (claims and runs items, reaps, prunes), the
 * scheduler (enqueues slots) and the daemon's presence in the runtime database (registered while
 * it runs, so every process can report the cluster), started and stopped together.
 * `syncline daemon` runs them alone; `syncline serve` runs them beside the API unless --no-daemon.
 */
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import { startDaemonPresence, type DaemonPresence } from './daemon-presence.js';
import type { ItemRunner } from '../execution/run-held-item.js';
import type { QueueSettings } from '../settings.js';
import { startDaemon, type Daemon } from './daemon.js';
import { claimLoopLiveness, type Liveness } from './daemon-liveness.js';
import { startScheduler, type Scheduler } from './scheduler.js';

export interface QueueWorkers {
  daemon: Daemon;
  scheduler: Scheduler;
  /** Whether the daemon's claim loop is alive (daemon-liveness.ts). */
  liveness(): Liveness;
  /** Stops scheduling first (no new slots), then the daemon (drain, release), then removes its presence. */
  stop(): Promise<void>;
}

export interface WorkerIdentity {
  /** The command the workers run in. */
  command: 'daemon' | 'serve';
  /** The Syncline version, as the cluster view shows it. */
  version: string;
}

export async function startQueueWorkers(
  runner: ItemRunner,
  holder: SnapshotHolder,
  settings: QueueSettings,
  identity: WorkerIdentity,
): Promise<QueueWorkers> {
  const daemon = await startDaemon({
    runner,
    concurrency: settings.concurrency,
    prefetch: settings.prefetch,
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
  const presence: DaemonPresence = await startDaemonPresence({
    db: runner.db,
    log: runner.log,
    id: daemon.workerId,
    command: identity.command,
    version: identity.version,
    concurrency: daemon.concurrency,
    running: () => daemon.running,
    heartbeatMs: settings.heartbeatMs,
  });
  return {
    daemon,
    scheduler,
    liveness: () => claimLoopLiveness(daemon.loop),
    async stop() {
      await scheduler.stop();
      await daemon.stop();
      await presence.stop();
    },
  };
}
