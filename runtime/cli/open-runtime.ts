/**
 * What the long-running commands (serve, daemon) share at start and stop: the stop signal, the
 * watched definitions, the connection pool that follows reloads, the migrated runtime database,
 * the process's metrics, item runners over them, and closing it all in order.
 */
import { ConnectionPool } from '../../connectors/connection-pool.js';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { DefinitionsWatcher } from '../../definitions/watch-definitions.js';
import { newWorkerId } from '../daemon/worker-id.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { ItemRunner } from '../execution/run-held-item.js';
import type { Logger } from '../log.js';
import { createRuntimeMetrics, type RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { connectionContext, type QueueSettings } from '../settings.js';
import { runProcess } from '../sync/run-process.js';
import { loadWatchedDefinitions } from './load-watched-definitions.js';
import { openMigratedDatabase } from './open-runtime-database.js';

/** Resolves with the first SIGTERM or SIGINT; register it first, so a signal during start-up also ends the process cleanly. */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}

export interface Runtime {
  holder: SnapshotHolder;
  watcher: DefinitionsWatcher;
  connections: ConnectionPool;
  db: RuntimeDatabase;
  /** The process's metrics (/metrics); the runners count their runs there. */
  metrics: RuntimeMetrics;
  /** An item runner holding items under a worker id of its own (`role`: daemon, api). */
  runner(role: string): ItemRunner;
  /** Stops watching, closes the connections, then the database. */
  close(): Promise<void>;
}

/** The runtime, or the exit code after printing why there is none (2 bad path, 1 problems or no database). */
export async function openRuntime(directory: string, queue: QueueSettings, log: Logger, notDoing: string): Promise<Runtime | number> {
  const definitions = await loadWatchedDefinitions(directory, log, notDoing);
  if (typeof definitions === 'number') return definitions;
  const { holder, watcher } = definitions;
  // A SQLite filename is relative to the definitions, not to where the process was started; file
  // Systems reach the directories of SYNCLINE_FILE_ROOTS.
  const connections = new ConnectionPool(connectionContext(directory));
  holder.on('swap', (snapshot) => {
    // Connections of systems that changed or went away are closed; the others are kept.
    connections
      .retain([...snapshot.systems.values()].map((s) => s.definition))
      .catch((error: unknown) => log.warn({ err: error }, 'closing a stale connection failed'));
  });
  const db = await openMigratedDatabase(queue.database, log);
  if (db === undefined) {
    await Promise.all([watcher.close(), connections.closeAll()]);
    return 1;
  }
  const metrics = createRuntimeMetrics({ holder, db, log, openSystems: () => connections.systemIds().length });
  return {
    holder,
    watcher,
    connections,
    db,
    metrics,
    runner: (role) => ({
      db,
      snapshot: () => holder.current,
      connections,
      log,
      runProcess,
      workerId: newWorkerId(role),
      leaseMs: queue.leaseMs,
      metrics: metrics.runs,
    }),
    async close() {
      await Promise.all([watcher.close(), connections.closeAll()]);
      await db.close();
    },
  };
}
