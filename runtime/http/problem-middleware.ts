/**
 * The edge between thrown errors and HTTP: an HttpProblem becomes its RFC 9457 body; a
 * ConnectorError its mapped problem; anything else a 500 with no internals. Server errors are
 * logged with their cause (the log may hold driver messages; responses never do).
 */
import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import { HttpProblem, toHttpProblem } from '../errors.js';

export function problemMiddleware(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpProblem('unknown-route', `No route ${ctx.method} ${ctx.path}. The interface description is at /api/openapi.json.`);
      }
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new HttpProblem('method-not-allowed', `${ctx.path} does not answer ${ctx.method}; it answers ${ctx.response.get('Allow')}.`, { headers: { Allow: String(ctx.response.get('Allow')) } });
      }
    } catch (error) {
      const problem = toHttpProblem(error);
      if (problem.status >= 500) log.error({ err: problem.cause ?? error, code: problem.code, path: ctx.path }, 'request failed');
      else if (problem.cause) log.debug({ err: problem.cause, code: problem.code, path: ctx.path }, problem.detail);
      ctx.status = problem.status;
      ctx.set(problem.extra.headers ?? {});
      ctx.type = 'application/problem+json';
      ctx.body = problem.toJSON(ctx.path);
    }
  };
}
