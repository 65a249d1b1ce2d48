/**
 * The Koa application: composed middleware and routers; it knows no connector by name.
 *
 * Order matters: the edge (edge-middleware.ts) gives each request its id, logs and counts it with
 * its final status and turns every error into problem+json; then each request pins the snapshot
 * current when it arrived, so a reload in the middle of it changes nothing for it.
 */
import { join } from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { ItemRunner } from '../execution/run-held-item.js';
import type { Logger } from '../log.js';
import { authenticate } from './auth.js';
import { connectionRoutes } from './connection-routes.js';
import { consoleAssets } from './console-assets.js';
import { consoleInfoRoutes } from './console-info-routes.js';
import { useEdgeMiddleware } from './edge-middleware.js';
import { healthRoutes, type LivenessCheck } from './health-routes.js';
import { metricsRoute } from './metrics.js';
import { openApiFor } from './openapi/build-openapi.js';
import { EventStreamSlots, type ItemEventSettings } from './item-events.js';
import { queueItemRoutes } from './queue-item-routes.js';
import { queueRoutes } from './queue-routes.js';
import { defaults } from '../settings.js';
import { packageRoot } from '../package-info.js';
import { refuseMalformedPath } from '../request/refuse-malformed-path.js';
import { refuseNulInPathParameters, refuseNulInQuery } from '../request/refuse-nul.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { RuntimeMetrics } from '../metrics/runtime-metrics.js';
import { webhookConsoleRoutes, type RunWebhook } from './webhook-console-routes.js';
import { runWebhookActionLazily } from '../webhooks/load-action.js';
import { callLogWriter } from '../webhooks/log/call-log-writer.js';
import type { WebhookCallRecord } from '../webhooks/log/record-call.js';
import type { WebhookActionHandler } from '../webhooks/webhook-call.js';
import { depsFor, executeWebhook, webhookResponseBody, webhookRouter } from '../webhooks/webhook-route.js';

export interface AppOptions {
  holder: SnapshotHolder;
  /** The definitions directory the holder's snapshots come from; the console names files relative to it. */
  definitionsDir: string;
  /** Whether a daemon (and its scheduler) runs in this process beside the API (default: no). */
  runsDaemon?: boolean;
  log: Logger;
  connections: ConnectionProvider;
  /** SHA-256 of the admin token (all scopes). */
  adminTokenHash: Buffer;
  /** Largest request body in bytes (default: `defaults.bodyLimit` of runtime/settings.ts). */
  bodyLimit?: number;
  /** Version published in the interface description. */
  version?: string;
  /** The runtime database (queue items); migrated before the app serves. */
  db: RuntimeDatabase;
  /** Runs the items of StartProcessDirect and ExecuteProcess in this process. */
  runner: ItemRunner;
  /** How long StartProcessDirect and ExecuteProcess wait before answering 202 with the running item. */
  syncTimeLimitMs: number;
  /** The process's metrics, served at /metrics; the webhook endpoint counts its calls there. */
  metrics: RuntimeMetrics;
  /** Whether the daemon of this process is alive, for /healthz (default: alive; none runs). */
  liveness?: LivenessCheck;
  /** Runs a webhook call in process (the endpoint's executeWebhook), for the console's test and replay. */
  runWebhook?: RunWebhook;
  /** Runs webhook actions (default: the dispatcher of runtime/webhooks/actions); tests replace it. */
  webhookAction?: WebhookActionHandler;
  /** Limits and poll interval of the queue item event streams (defaults: eventStreamDefaults of settings.ts). */
  eventStreams?: Partial<ItemEventSettings>;
  /** The built operator console served at /console (default: dist/console of the package). */
  consoleDir?: string;
}

export function createApp(options: AppOptions): Koa {
  const { holder, log } = options;
  const app = new Koa();
  useEdgeMiddleware(app, log, options.metrics.registry);
  app.use(async (ctx, next) => {
    ctx.state.snapshot = holder.current;
    await next();
  });
  app.use(refuseMalformedPath);

  // Route matching is case-insensitive: installations of the service differ in spelling.
  const open = new Router({ sensitive: false });
  healthRoutes(open, holder, { db: options.db, ...(options.liveness ? { liveness: options.liveness } : {}) });
  metricsRoute(open, options.metrics.registry);

  const api = new Router({ prefix: '/api', sensitive: false });
  // Registered with an explicit (empty) path: @koa/router 15 builds the pattern of a path-less
  // use() on a prefixed router without its `sensitive: false`, so `/API/...` matched the routes
  // but skipped authentication.
  api.use(
    '',
    authenticate((ctx) => ctx.state.snapshot, options.adminTokenHash),
  );
  api.use('', refuseNulInQuery);
  const bodyLimit = options.bodyLimit ?? defaults.bodyLimit;
  const version = options.version ?? '0.0.0';
  api.get('/openapi.json', (ctx) => {
    ctx.body = openApiFor(ctx.state.snapshot, { version, bodyLimit });
  });
  const callLog = callLogWriter(options.db, log);
  const webhookOptions = {
    connections: options.connections,
    db: options.db,
    log,
    bodyLimit,
    runAction: options.webhookAction ?? runWebhookActionLazily,
    adminTokenHash: options.adminTokenHash,
    // Entries are written in batches behind the answers; the console flushes before it reads.
    record: (record: WebhookCallRecord) => callLog.add(record),
    countCall: options.metrics.webhooks.countCall,
  };
  // The console's test and replay run a call exactly as the endpoint does, on the current snapshot.
  const runWebhook: RunWebhook = async (webhookId, request, callOptions) => {
    const result = await executeWebhook(depsFor(holder.current, webhookOptions), webhookId, request, callOptions);
    return {
      status: result.status,
      headers: result.headers,
      body: webhookResponseBody(result),
      ...(result.queueItemId === undefined ? {} : { queueItemId: result.queueItemId }),
    };
  };
  connectionRoutes(api, { connections: options.connections, bodyLimit });
  queueRoutes(api, {
    db: options.db,
    connections: options.connections,
    runner: options.runner,
    syncTimeLimitMs: options.syncTimeLimitMs,
    bodyLimit,
  });
  // One count for the process: item streams and the test dialog's relayed runs share its places.
  const eventStreams = new EventStreamSlots(options.eventStreams);
  queueItemRoutes(api, { db: options.db, connections: options.connections, log, eventStreams });
  webhookConsoleRoutes(api, {
    db: options.db,
    log,
    eventStreams,
    bodyLimit,
    runWebhook: options.runWebhook ?? runWebhook,
    adminTokenHash: options.adminTokenHash,
  });
  consoleInfoRoutes(api, {
    db: options.db,
    holder,
    connections: options.connections,
    definitionsDir: options.definitionsDir,
    version,
    role: options.runsDaemon ? 'api+daemon' : 'api',
  });
  // After every route: it looks at the parameters the routes declare.
  refuseNulInPathParameters(api);

  // First: webhooks authenticate by secret or signature, not by the /api router's bearer check,
  // and no other router's allowedMethods may wrap them — it turned an unknown id's 404 to an
  // OPTIONS call into a 200 listing every method, telling the caller the id does not exist.
  // Only the exact webhook path matches here; everything else goes on.
  app.use(webhookRouter(webhookOptions).routes());
  app.use(open.routes()).use(open.allowedMethods());
  app.use(consoleAssets(options.consoleDir ?? join(packageRoot(), 'dist', 'console')));
  app.use(api.routes()).use(api.allowedMethods());
  return app;
}
