/**
 * The metrics of one process, in one Prometheus registry that /metrics serves — by `serve` on its
 * port, by `syncline daemon` on its probe port (http/probe-app.ts):
 *
 * - process metrics of prom-client (CPU, memory, event loop lag, handles), prefixed `syncline_`;
 * - the HTTP requests this process answered (http/metrics.ts adds them to the registry);
 * - the queue and the daemons across the cluster, read from the runtime database per scrape
 *   (queue-gauges.ts);
 * - the runs this process recorded (run-metrics.ts), the webhook calls it answered
 *   (webhook-metrics.ts), its reloads of the definitions (reload-metrics.ts), its connections
 *   (pool-gauges.ts).
 *
 * One registry per process, made where the process's parts are (cli/open-runtime.ts); never the
 * global one, so tests running several applications in one process count each apart.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { Logger } from '../log.js';
import { registerPoolGauges } from './pool-gauges.js';
import { registerQueueGauges } from './queue-gauges.js';
import { registerReloadMetrics } from './reload-metrics.js';
import { registerRunMetrics, type RunMetrics } from './run-metrics.js';
import { registerWebhookMetrics, type WebhookMetrics } from './webhook-metrics.js';

export interface RuntimeMetrics {
  readonly registry: Registry;
  readonly runs: RunMetrics;
  readonly webhooks: WebhookMetrics;
}

export interface RuntimeMetricSources {
  holder: SnapshotHolder;
  db: RuntimeDatabase;
  log: Logger;
  /** How many systems have an open connection (ConnectionPool's systemIds). */
  openSystems: () => number;
}

export function createRuntimeMetrics(sources: RuntimeMetricSources): RuntimeMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'syncline_' });
  registerQueueGauges(registry, sources);
  registerReloadMetrics(registry, sources.holder);
  registerPoolGauges(registry, sources);
  return { registry, runs: registerRunMetrics(registry), webhooks: registerWebhookMetrics(registry) };
}
