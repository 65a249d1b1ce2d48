/**
 * `syncline serve` — loads the definitions, serves them over HTTP and reloads them when files
 * change; opens (and migrates) the runtime database, and unless --no-daemon runs the queue daemon
 * and scheduler in the same process. Definitions that are invalid at start are printed and the
 * process exits 1: serving nothing would hide the mistake. A database that cannot be opened is
 * one line and exit 1.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { envOrFile, EnvOrFileError } from '../env-or-file.js';
import { packageVersion } from '../package-info.js';
import { startQueueWorkers, type QueueWorkers } from '../daemon/queue-workers.js';
import { sha256 } from '../http/auth.js';
import { createApp } from '../http/create-app.js';
import { createHttpServer } from '../http/http-server.js';
import { stopDirectRuns } from '../http/run-direct.js';
import { createLogger } from '../log.js';
import {
  queueSettings,
  serveSettings,
  SettingsError,
  type QueueFlags,
  type QueueSettings,
  type ServeFlags,
  type ServeSettings,
} from '../settings.js';
import { openRuntime, stopSignal } from './open-runtime.js';

export interface ServeCommandFlags extends ServeFlags, QueueFlags {
  /** False with --no-daemon: the API alone, items stay Pending until a daemon takes them. */
  daemon?: boolean;
}

export async function serveCommand(flags: ServeCommandFlags): Promise<number> {
  const stop = stopSignal();
  let settings: ServeSettings;
  let queue: QueueSettings;
  let admin: string;
  try {
    settings = serveSettings(flags);
    queue = queueSettings(flags);
    admin = adminToken();
  } catch (error) {
    if (!(error instanceof SettingsError) && !(error instanceof EnvOrFileError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const log = createLogger();
  const runtime = await openRuntime(settings.definitions, queue, log, 'not serving');
  if (typeof runtime === 'number') return runtime;
  const { holder, connections, db } = runtime;

  // The API's direct runs hold items under their own id, so stopping the daemon never releases them.
  const runner = runtime.runner('api');
  let workers: QueueWorkers | undefined;
  if (flags.daemon !== false)
    workers = await startQueueWorkers(runtime.runner('daemon'), holder, queue, { command: 'serve', version: packageVersion() });
  else log.info('--no-daemon: queued items stay Pending until a daemon on this database runs them');

  const closeAll = async (): Promise<void> => {
    await workers?.stop();
    await runtime.close();
  };
  const app = createApp({
    holder,
    definitionsDir: settings.definitions,
    runsDaemon: workers !== undefined,
    log,
    connections,
    adminTokenHash: sha256(admin),
    bodyLimit: settings.bodyLimit,
    version: packageVersion(),
    db,
    runner,
    syncTimeLimitMs: queue.syncTimeLimitMs,
    metrics: runtime.metrics,
    ...(workers === undefined ? {} : { liveness: workers.liveness }),
  });
  const server = createHttpServer(app, settings, log).listen(settings.port, settings.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    process.stderr.write(`error: cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}\n`);
    await closeAll();
    return 1;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  log.info(
    {
      definitions: settings.definitions,
      files: holder.current.files.length,
      database: queue.database.display,
      daemon: workers !== undefined,
      console: `http://${host}:${port}/console`,
    },
    `serving on http://${host}:${port}`,
  );

  const signal = await stop;
  log.info({ signal }, 'shutting down');
  // The daemon stops claiming at once and drains alongside the requests, so the whole stop takes
  // about one drain time, not the sum of the steps.
  const workersStopped = workers?.stop();
  try {
    const closed = once(server, 'close');
    server.close();
    server.closeIdleConnections();
    // Direct runs — those whose request still waits for them, and those that already answered
    // 202 — get the drain time, then go back to the queue. Started with the close, not after it:
    // a request waiting for its run (up to SYNCLINE_SYNC_TIME_LIMIT) would otherwise hold the
    // close, and the drain would only begin once it answered.
    const released = await stopDirectRuns(queue.drainMs, log);
    if (released > 0) log.info({ released }, 'released interrupted direct runs back to Pending');
    // Requests in flight finish before the database closes under them.
    await closed;
  } finally {
    await workersStopped;
    await closeAll();
  }
  return 0;
}

/**
 * SYNCLINE_ADMIN_TOKEN (or the file SYNCLINE_ADMIN_TOKEN_FILE names), or a random token printed
 * once on standard error: an instance is never open to anyone, and never locked to its operator
 * either.
 */
function adminToken(): string {
  const configured = envOrFile(process.env, 'SYNCLINE_ADMIN_TOKEN');
  if (configured) return configured.value;
  const token = randomBytes(24).toString('base64url');
  process.stderr.write(`admin token (generated for this run; set SYNCLINE_ADMIN_TOKEN to choose one): ${token}\n`);
  return token;
}
