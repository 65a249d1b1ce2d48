/**
 * Server-sent events (text/event-stream) on a Koa response: the status and headers go out at once,
 * then one event per `send`, each flushed as written. Events are `event: <name>` with one
 * `data:` line of JSON (JSON has no raw newlines, so one line always suffices).
 *
 * A comment line (`: keep-alive`) goes out every `keepAliveMs` (15 s) while the stream is open:
 * proxies and load balancers close connections that stay silent for their idle timeout (often
 * 30–60 s), and a run between two progress reports can be silent longer than that.
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';

export interface EventStream {
  send(event: string, data: unknown): void;
  end(): void;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

export interface EventStreamOptions {
  /** Pause between keep-alive comments, in ms (default 15 000). */
  keepAliveMs?: number;
}

export const defaultKeepAliveMs = 15_000;

export function openEventStream(ctx: Context, { keepAliveMs = defaultKeepAliveMs }: EventStreamOptions = {}): EventStream {
  const stream = new PassThrough();
  const closed = new AbortController();
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.type = 'text/event-stream; charset=utf-8';
  // Proxies (nginx) buffer responses unless told not to; a live ticker must not wait in a buffer.
  ctx.set({ 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' });
  ctx.body = stream;
  const keepAlive = setInterval(() => {
    if (!stream.writableEnded) stream.write(': keep-alive\n\n');
  }, keepAliveMs);
  // The interval alone must not hold a stopping process open.
  keepAlive.unref();
  const stop = (): void => clearInterval(keepAlive);
  ctx.res.once('close', () => {
    stop();
    closed.abort();
  });
  return {
    signal: closed.signal,
    send(event, data) {
      if (!stream.writableEnded) stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end() {
      stop();
      if (!stream.writableEnded) stream.end();
    },
  };
}
