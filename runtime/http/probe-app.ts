/**
 * The HTTP application of `syncline daemon --http-port`: a worker has no API, but an orchestrator
 * still needs to know whether it lives and is ready, and Prometheus what it does. It answers
 * exactly what `serve` answers on the same paths, without a token:
 *
 *   GET /healthz   liveness: the process answers and its claim loop goes round
 *   GET /readyz    readiness: the definitions are loaded, the runtime database answers and takes
 *                  writes; with the queue and the daemons across the cluster
 *   GET /metrics   the process's metrics (metrics/runtime-metrics.ts)
 *
 * Anything else is a 404 problem. The same edge as the API's (request ids, request log, HTTP
 * metrics, problems), so a probe's log line reads like any other request's.
 */
import Router from '@koa/router';
import Koa from 'koa';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { Logger } from '../log.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { useEdgeMiddleware } from './edge-middleware.js';
import { healthRoutes, type LivenessCheck } from './health-routes.js';
import { metricsRoute } from './metrics.js';

export interface ProbeAppOptions {
  holder: SnapshotHolder;
  db: RuntimeDatabase;
  log: Logger;
  metrics: RuntimeMetrics;
  liveness: LivenessCheck;
}

export function createProbeApp(options: ProbeAppOptions): Koa {
  const app = new Koa();
  useEdgeMiddleware(app, options.log, options.metrics.registry, 'This port answers GET /healthz, /readyz and /metrics.');
  const router = new Router({ sensitive: false });
  healthRoutes(router, options.holder, { db: options.db, liveness: options.liveness });
  metricsRoute(router, options.metrics.registry);
  app.use(router.routes()).use(router.allowedMethods());
  return app;
}
