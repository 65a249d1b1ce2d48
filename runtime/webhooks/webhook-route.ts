/**
 * The webhook endpoint `GET|POST|OPTIONS /api/webhooks/:webhookId`, a thin adapter: it reads the
 * request (read-webhook-body.ts), runs the call (executeWebhook) and writes the answer. It sits
 * on a router of its own, mounted before the authenticated /api router: webhooks carry their own
 * security (secret, signature) instead of a bearer token, and only this exact path skips the
 * bearer check — any other /api path, in any spelling, still reaches it.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Snapshot, WebhookEntry } from '../../definitions/snapshot.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { HttpProblem } from '../errors.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { Logger } from '../log.js';
import { executeWebhook, responseText, type WebhookDeps, type WebhookResult } from './execute-webhook.js';
import type { WebhookCallRecord } from './log/record-call.js';
import { readWebhookRequest } from './read-webhook-body.js';
import type { WebhookActionHandler, WebhookRequest } from './webhook-call.js';

export { executeWebhook, type ExecuteOptions, type WebhookDeps, type WebhookResult } from './execute-webhook.js';

export const webhookPath = '/api/webhooks/:webhookId';

export interface WebhookRouteOptions {
  connections: ConnectionProvider;
  db: RuntimeDatabase;
  log: Logger;
  bodyLimit: number;
  runAction: WebhookActionHandler;
  record?: (record: WebhookCallRecord) => Promise<void>;
  /** SHA-256 of the admin token, redacted from the log like every token. */
  adminTokenHash?: Buffer;
  /** Counts each call the endpoint answered (metrics/webhook-metrics.ts); `entry` is undefined for an unknown id. */
  countCall?: (entry: WebhookEntry | undefined, status: number) => void;
}

/** Methods the endpoint answers; others get 405 here rather than a 401 from the /api router. */
const methods = new Set(['GET', 'POST', 'OPTIONS']);

export function webhookRouter(options: WebhookRouteOptions): Router {
  const router = new Router({ sensitive: false });
  router.all(webhookPath, async (ctx) => {
    if (!methods.has(ctx.method)) {
      throw new HttpProblem('method-not-allowed', `A webhook answers GET, POST and OPTIONS, not ${ctx.method}.`, {
        headers: { Allow: 'GET, POST, OPTIONS' },
      });
    }
    const webhookId = String(ctx.params.webhookId);
    const { request, refusal } = await readRequest(ctx, options.bodyLimit);
    const controller = new AbortController();
    const abandon = () => {
      if (!ctx.res.writableEnded) controller.abort();
    };
    ctx.res.once('close', abandon);
    const snapshot = ctx.state.snapshot as Snapshot;
    // The request's id and logger, as http/request-id.ts set them (read here directly: the HTTP
    // layer imports the webhooks, not the other way round).
    const requestId = ctx.state.requestId as string | undefined;
    const deps = depsFor(snapshot, { ...options, log: (ctx.state.log as Logger | undefined) ?? options.log });
    const result = await executeWebhook(deps, webhookId, request, {
      signal: controller.signal,
      ...(refusal ? { refusal } : {}),
      ...(requestId ? { requestId } : {}),
    });
    // An exact lookup: executeWebhook has confirmed the id (or not) in constant time already.
    options.countCall?.(snapshot.webhooks.get(webhookId), result.status);
    ctx.status = result.status;
    ctx.set(result.headers);
    const body = webhookResponseBody(result);
    if (body !== undefined) ctx.body = body;
  });
  return router;
}

/** The call's dependencies for one snapshot. */
export function depsFor(snapshot: Snapshot, options: Omit<WebhookRouteOptions, 'bodyLimit'>): WebhookDeps {
  return {
    snapshot,
    connections: options.connections,
    db: options.db,
    log: options.log,
    runAction: options.runAction,
    ...(options.record ? { record: options.record } : {}),
    ...(options.adminTokenHash ? { adminTokenHash: options.adminTokenHash } : {}),
  };
}

/** The answer's body as sent: as executeWebhook wrote it, or (a problem answer) written now; undefined for none. */
export function webhookResponseBody(result: Pick<WebhookResult, 'body' | 'bodyText' | 'headers'>): string | undefined {
  return result.bodyText ?? responseText(result);
}

/**
 * The request; a body the reader refuses becomes a `refusal` that executeWebhook answers after
 * the id checks, so the refusal is logged with the webhook's other calls.
 */
async function readRequest(ctx: Context, limit: number): Promise<{ request: WebhookRequest; refusal?: HttpProblem }> {
  try {
    return { request: await readWebhookRequest(ctx, limit) };
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    const query = Object.fromEntries(new URLSearchParams(ctx.querystring));
    return {
      request: { method: ctx.method.toUpperCase(), data: undefined, query, headers: { ...ctx.headers }, rawBody: Buffer.alloc(0) },
      refusal: error,
    };
  }
}
