/**
 * Server-sent events (text/event-stream) on a Koa response: the status and headers go out at once,
 * then one event per `send`, each flushed as written. Events are `event: <name>` with one
 * `data:` line of JSON (JSON has no raw newlines, so one line always suffices).
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

export interface EventStream {
  send(event: string, data: unknown): void;
  end(): void;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

export function openEventStream(ctx: Context): EventStream {
  const stream = new PassThrough();
  const closed = new AbortController();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.type = 'text/event-stream; charset=utf-8';
  // Proxies (nginx) buffer responses unless told not to; a live ticker must not wait in a buffer.
  ctx.set({ 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
  ctx.body = stream;
  ctx.res.once('close', () => closed.abort());
  return {
    signal: closed.signal,
    send(event, data) {
      if (!stream.writableEnded) stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      if (!stream.writableEnded) stream.end();
    },
  };
}
