/**
 * `syncline daemon` — the queue daemon and scheduler without the HTTP API: a scale-out worker.
 * Any number of them share one PostgreSQL or MariaDB database (claims skip each other's items,
 * schedules enqueue each slot once). Definitions reload like serve's; SIGTERM or SIGINT stops
 * claiming, lets running items finish within the drain time, releases the rest and exits 0.
 */
import { startQueueWorkers } from '../daemon/queue-workers.js';
import { createLogger } from '../log.js';
import { queueSettings, SettingsError, defaults, type QueueFlags, type QueueSettings } from '../settings.js';
import { openRuntime, stopSignal } from './open-runtime.js';

export interface DaemonFlags extends QueueFlags {
  definitions?: string;
}

export async function daemonCommand(flags: DaemonFlags): Promise<number> {
  const stop = stopSignal();
  let queue: QueueSettings;
  try {
    queue = queueSettings(flags);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const directory = flags.definitions ?? process.env.SYNCLINE_DEFINITIONS ?? defaults.definitions;
  const log = createLogger();
  const runtime = await openRuntime(directory, queue, log, 'not starting the daemon');
  if (typeof runtime === 'number') return runtime;

  const workers = await startQueueWorkers(runtime.runner('daemon'), runtime.holder, queue);
  log.info(
    {
      definitions: directory,
      files: runtime.holder.current.files.length,
      database: queue.database.display,
      concurrency: queue.concurrency,
    },
    'daemon running',
  );

  const signal = await stop;
  log.info({ signal }, 'shutting down');
  await workers.stop();
  await runtime.close();
  return 0;
}
