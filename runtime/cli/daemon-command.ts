/**
 * `syncline daemon` — the queue daemon and scheduler without the HTTP API: a scale-out worker.
 * Any number of them share one PostgreSQL or MariaDB database (claims skip each other's items,
 * schedules enqueue each slot once), each registered there while it runs so that any process can
 * report the cluster. Definitions reload like serve's; SIGTERM or SIGINT stops claiming, lets
 * running items finish within the drain time, releases the rest and exits 0.
 *
 * With --http-port (or SYNCLINE_DAEMON_HTTP_PORT) it also answers /healthz, /readyz and /metrics
 * on that port (http/probe-app.ts), for an orchestrator's probes and Prometheus; without it,
 * nothing listens. The probes answer until the daemon has stopped.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import { startQueueWorkers } from '../daemon/queue-workers.js';
import { createHttpServer } from '../http/http-server.js';
import { createProbeApp } from '../http/probe-app.js';
import { createLogger } from '../log.js';
import {
  defaults,
  probeSettings,
  queueSettings,
  SettingsError,
  type ProbeFlags,
  type ProbeSettings,
  type QueueFlags,
  type QueueSettings,
} from '../settings.js';
import { openRuntime, stopSignal } from './open-runtime.js';
import { packageVersion } from '../package-info.js';

export interface DaemonFlags extends QueueFlags, ProbeFlags {
  definitions?: string;
}

export async function daemonCommand(flags: DaemonFlags): Promise<number> {
  const stop = stopSignal();
  let queue: QueueSettings;
  let probes: ProbeSettings | undefined;
  try {
    queue = queueSettings(flags);
    probes = probeSettings(flags);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const directory = flags.definitions ?? process.env.SYNCLINE_DEFINITIONS ?? defaults.definitions;
  const log = createLogger();
  const runtime = await openRuntime(directory, queue, log, 'not starting the daemon');
  if (typeof runtime === 'number') return runtime;

  const workers = await startQueueWorkers(runtime.runner('daemon'), runtime.holder, queue, {
    command: 'daemon',
    version: packageVersion(),
  });
  let server: Server | undefined;
  if (probes !== undefined) {
    const app = createProbeApp({
      holder: runtime.holder,
      db: runtime.db,
      log,
      metrics: runtime.metrics,
      liveness: workers.liveness,
    });
    // Serve's connection limits: the probe port needs no token either.
    server = createHttpServer(app, defaults, log).listen(probes.port, probes.host);
    try {
      await once(server, 'listening');
    } catch (error) {
      process.stderr.write(`error: cannot listen on ${probes.host}:${probes.port}: ${(error as Error).message}\n`);
      await workers.stop();
      await runtime.close();
      return 1;
    }
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : probes.port;
    const host = probes.host.includes(':') ? `[${probes.host}]` : probes.host;
    log.info({ workerId: workers.daemon.workerId }, `probes on http://${host}:${port}`);
  }
  log.info(
    {
      definitions: directory,
      files: runtime.holder.current.files.length,
      database: queue.database.display,
      concurrency: queue.concurrency,
      workerId: workers.daemon.workerId,
    },
    'daemon running',
  );

  const signal = await stop;
  log.info({ signal }, 'shutting down');
  await workers.stop();
  if (server !== undefined) {
    server.close();
    server.closeAllConnections();
    await once(server, 'close');
  }
  await runtime.close();
  return 0;
}
