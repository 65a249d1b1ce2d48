/**
 * One log line per request: method, route pattern, status, duration, the API client and (through
 * the request's logger, request-id.ts) the request id. Never headers, bodies or query strings —
 * they carry tokens, secrets and personal data. A streamed answer is logged once sent, with 499
 * when the client closed the connection during it.
 */
import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import type { Principal } from './auth.js';
import { routeLabel } from './metrics.js';
import { finalStatus } from './problem-middleware.js';
import { requestLogger } from './request-id.js';

export function requestLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const principal = ctx.state.principal as Principal | undefined;
      const line = (status: number) =>
        requestLogger(ctx, log).info(
          {
            method: ctx.method,
            route: routeLabel(ctx),
            status,
            ms: Math.round((performance.now() - started) * 10) / 10,
            ...(principal ? { client: principal.id } : {}),
            ...(ctx.state.requestIdReplaced ? { requestIdReplaced: true } : {}),
          },
          'request',
        );
      const status = finalStatus(ctx);
      if (typeof status === 'number') line(status);
      else void status.then(line);
    }
  };
}
