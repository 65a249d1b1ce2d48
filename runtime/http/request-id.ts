/**
 * The request id: `X-Request-Id` as the caller sent it when it is acceptable, else a new random
 * one (a UUID). It is answered back in the same header, is a field of every log line of the
 * request (`ctx.state.log`, a pino child logger), a member of every problem+json body
 * (errors.ts), and goes with what the request starts: the queue items it enqueues or runs and the
 * webhook call's log entry (migrations/009-request-ids.ts), so a run's log lines in a daemon lead
 * back to the request.
 *
 * It is the caller's word, so it is only ever shown and logged — never used to find, authorize or
 * deduplicate anything. Acceptable: 1 to 128 printable ASCII characters (space to `~`; leading and
 * trailing spaces dropped), which can neither break a log line nor a response header. Anything
 * else — too long, or holding a control or non-ASCII character — is replaced by a new id, and the
 * request's log line says so.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../log.js';

export const requestIdHeader = 'X-Request-Id';

/** Longest request id accepted; queue_items and webhook_log hold 128 characters (009-request-ids.ts). */
export const requestIdMaxLength = 128;

const acceptable = /^[\x20-\x7e]+$/;

/** The caller's id when it is acceptable, else undefined. */
export function acceptedRequestId(sent: string | undefined): string | undefined {
  if (sent === undefined) return undefined;
  const trimmed = sent.trim();
  return trimmed.length > 0 && trimmed.length <= requestIdMaxLength && acceptable.test(trimmed) ? trimmed : undefined;
}

/** Gives each request its id and a logger that writes it; the first middleware of an app. */
export function requestId(log: Logger): Middleware {
  return async (ctx, next) => {
    const sent = ctx.get(requestIdHeader);
    const accepted = acceptedRequestId(sent === '' ? undefined : sent);
    const id = accepted ?? randomUUID();
    ctx.state.requestId = id;
    ctx.state.log = log.child({ requestId: id });
    // The request log notes it; the refused value itself is not logged: it is what could not be trusted to be.
    if (sent !== '' && accepted === undefined) ctx.state.requestIdReplaced = true;
    ctx.set(requestIdHeader, id);
    await next();
  };
}

/** The request's id (undefined outside a request that passed `requestId`). */
export function requestIdOf(ctx: Context): string | undefined {
  return ctx.state.requestId as string | undefined;
}

/** The request's logger, or `fallback` outside a request that passed `requestId`. */
export function requestLogger(ctx: Context, fallback: Logger): Logger {
  return (ctx.state.log as Logger | undefined) ?? fallback;
}
