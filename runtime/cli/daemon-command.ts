/**
 * `syncline daemon` — the queue daemon and scheduler without the HTTP API: a scale-out worker.
 * Any number of them share one PostgreSQL or MariaDB database (claims skip each other's items,
 * schedules enqueue each slot once). Definitions reload like serve's; SIGTERM or SIGINT stops
 * claiming, lets running items finish within the drain time, releases the rest and exits 0.
 */
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { startQueueWorkers } from '../daemon/queue-workers.js';
import { newWorkerId } from '../daemon/worker-id.js';
import { createLogger } from '../log.js';
import { queueSettings, SettingsError, defaults, type QueueFlags } from '../settings.js';
import { runProcess } from '../sync/run-process.js';
import { loadWatchedDefinitions } from './load-watched-definitions.js';
import { openMigratedDatabase } from './open-runtime-database.js';

export interface DaemonFlags extends QueueFlags {
  definitions?: string;
}

export async function daemonCommand(flags: DaemonFlags): Promise<number> {
  const stop = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  let queue;
  try {
    queue = queueSettings(flags);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const directory = flags.definitions ?? process.env.SYNCLINE_DEFINITIONS ?? defaults.definitions;
  const log = createLogger();
  const definitions = await loadWatchedDefinitions(directory, log, 'not starting the daemon');
  if (typeof definitions === 'number') return definitions;
  const { holder, watcher } = definitions;
  const connections = new ConnectionPool({ baseDirectory: process.cwd() });
  holder.on('swap', (snapshot) => {
    connections.retain([...snapshot.systems.values()].map((s) => s.definition)).catch((error: unknown) => log.warn({ err: error }, 'closing a stale connection failed'));
  });
  const db = await openMigratedDatabase(queue.database, log);
  if (db === undefined) {
    await Promise.all([watcher.close(), connections.closeAll()]);
    return 1;
  }

  const runner = { db, snapshot: () => holder.current, connections, log, runProcess, workerId: newWorkerId('daemon'), leaseMs: queue.leaseMs };
  const workers = await startQueueWorkers(runner, holder, queue);
  log.info({ definitions: directory, files: holder.current.files.length, database: queue.database.display, concurrency: queue.concurrency }, 'daemon running');

  const signal = await stop;
  log.info({ signal }, 'shutting down');
  await workers.stop();
  await Promise.all([watcher.close(), connections.closeAll()]);
  await db.close();
  return 0;
}
