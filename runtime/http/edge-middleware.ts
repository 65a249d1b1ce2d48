/**
 * The middleware every HTTP application of Syncline starts with — the API of `serve` and the
 * probes of `syncline daemon` alike — in the order that makes each see what it needs:
 *
 * 1. the request id (request-id.ts), first, so every later log line and problem carries it;
 * 2. the request log and 3. the HTTP metrics, around everything else, so they see the final status;
 * 4. the problem edge (problem-middleware.ts), which turns every error below it into problem+json.
 */
import type Koa from 'koa';
import type { Registry } from 'prom-client';
import type { Logger } from '../log.js';
import { httpMetrics } from './metrics.js';
import { problemMiddleware } from './problem-middleware.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';

/** `routesHint`: what a 404 of an unknown route says about the routes there are (default: the API's description). */
export function useEdgeMiddleware(app: Koa, log: Logger, registry: Registry, routesHint?: string): void {
  // Errors are answered by the problem edge and logged there, once.
  app.silent = true;
  app.use(requestId(log));
  app.use(requestLog(log));
  app.use(httpMetrics(registry));
  app.use(problemMiddleware(log, routesHint));
}
