/**
 * The edge between thrown errors and HTTP: an HttpProblem becomes its RFC 9457 body; a
 * ConnectorError its mapped problem; anything else a 500 with no internals. Server errors are
 * logged with their cause (the log may hold driver messages; responses never do).
 *
 * A client that closed the connection before its answer is no server error: the work it started
 * stops (requestSignal aborts it, a body being read breaks off), and what that throws is the
 * consequence, not a fault. Such a request is logged at info and counted with status 499 (nginx's
 * "client closed request"), which no answer carries since none is sent.
 */
import { Stream } from 'node:stream';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../log.js';
import { HttpProblem, toHttpProblem } from '../errors.js';
import { answerJson, isJsonBody } from '../request/answer-json.js';
import { requestIdOf, requestLogger } from './request-id.js';

/** The status the request log and /metrics record for a request whose client went away. */
export const clientClosedStatus = 499;

/** What a 404 of an unknown route adds after "No route …": where the routes are described. */
const apiRoutesHint = 'The interface description is at /api/openapi.json.';

export function problemMiddleware(appLog: Logger, routesHint = apiRoutesHint): Middleware {
  return async (ctx, next) => {
    const log = requestLogger(ctx, appLog);
    try {
      // RFC 9112 §3.2. Node drops headers past its 2,000th, so a request with more can lose it too.
      if (ctx.req.httpVersion === '1.1' && ctx.req.headers.host === undefined) {
        throw new HttpProblem(
          'invalid-request',
          'An HTTP/1.1 request needs a Host header (send at most 2,000 headers; Node drops the rest).',
        );
      }
      await next();
      // The router answers a method it implements nowhere (TRACE, PROPFIND…) with a bare 501; the
      // route, or its absence, is what the caller needs to hear about, as for any other method.
      if (ctx.status === 501 && ctx.body === undefined) ctx.status = ctx.response.get('Allow') ? 405 : 404;
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpProblem('unknown-route', `No route ${ctx.method} ${ctx.path}. ${routesHint}`);
      }
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new HttpProblem('method-not-allowed', `${ctx.path} does not answer ${ctx.method}; it answers ${ctx.response.get('Allow')}.`, {
          headers: { Allow: String(ctx.response.get('Allow')) },
        });
      }
      // Written here rather than by Koa after every middleware returned, so a failure is a problem.
      if (isJsonBody(ctx.body)) ctx.body = answerJson(ctx.body);
    } catch (error) {
      const problem = toHttpProblem(error);
      if (clientGone(ctx)) {
        // A fault that merely coincided with the hang-up is still a fault.
        if (problem.status >= 500 && !stoppedByHangUp(error))
          log.error({ err: problem.cause ?? error, code: problem.code, path: ctx.path }, 'request failed');
        log.info({ path: ctx.path }, 'the client closed the connection before the answer; its request was stopped');
        ctx.status = clientClosedStatus;
        return;
      }
      if (problem.status >= 500) log.error({ err: problem.cause ?? error, code: problem.code, path: ctx.path }, 'request failed');
      else if (problem.cause) log.debug({ err: problem.cause, code: problem.code, path: ctx.path }, problem.detail);
      ctx.status = problem.status;
      ctx.set(problem.extra.headers ?? {});
      ctx.type = 'application/problem+json';
      ctx.body = problem.toJSON(ctx.path, requestIdOf(ctx));
    }
  };
}

/**
 * The status a request ended with, for the request log and /metrics: known when the middleware
 * returns, except for a streamed answer (json-response.ts), which is sent after it; a client that
 * closes the connection during that ended the request as one gone before its answer (499), though
 * the status line it got said 200; one the server broke off (a record it could not write as JSON,
 * `answerFailed`) as the server error it is (500).
 */
export function finalStatus(ctx: Context): number | Promise<number> {
  if (!(ctx.body instanceof Stream) || ctx.res.writableFinished) return ctx.status;
  const broken = () => (ctx.state.answerFailed === true ? 500 : clientClosedStatus);
  if (ctx.res.destroyed) return broken();
  return new Promise((resolve) => ctx.res.once('close', () => resolve(ctx.res.writableFinished ? ctx.status : broken())));
}

/** Whether the connection closed before the answer was sent: nothing can reach the client any more. */
function clientGone(ctx: Context): boolean {
  return !ctx.res.writableFinished && (ctx.res.destroyed || ctx.req.socket?.destroyed === true);
}

/** Whether `error` is what stopping a request throws: an abort (requestSignal), or a body that broke off. */
function stoppedByHangUp(error: unknown): boolean {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth += 1) {
    if (at.name === 'AbortError') return true;
    const code = (at as { code?: unknown }).code;
    if (code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'ERR_STREAM_PREMATURE_CLOSE') return true;
  }
  return false;
}
