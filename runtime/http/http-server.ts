/**
 * The HTTP server `syncline serve` listens with: the Koa application's handler on a node:http
 * server that holds connections to the limits of the settings (settings.ts has the defaults and
 * why):
 *
 * - a client that has not sent its whole request line and headers within `headersTimeoutMs`, or
 *   its whole request within `requestTimeoutMs`, gets 408 and the connection is closed — the answer
 *   itself may take longer (a direct run, the console's event stream);
 * - an idle keep-alive connection is closed after `keepAliveTimeoutMs`;
 * - past `maxConnections` open connections, a new one is closed as soon as it is accepted, while the
 *   open ones go on being answered.
 *
 * Node looks for expired connections on a timer (every 30 s by its default), which would let a
 * slow client stay up to 30 s past its time; here it looks four times per headers timeout, at most
 * once a second.
 */
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { Logger } from '../log.js';
import type { ServeSettings } from '../settings.js';

export type ConnectionLimits = Pick<ServeSettings, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections'>;

/** Refused connections are reported at most this often, so a flood does not become a flood of log lines. */
const dropReportEveryMs = 10_000;

export function createHttpServer(app: Koa, limits: ConnectionLimits, log: Logger): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(25, Math.floor(limits.headersTimeoutMs / 4))),
    },
    app.callback(),
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  let dropped = 0;
  let reportedAt = 0;
  server.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - reportedAt < dropReportEveryMs) return;
    log.warn(
      { refused: dropped, maxConnections: limits.maxConnections },
      'connection limit reached: new connections are closed until open ones end (SYNCLINE_MAX_CONNECTIONS)',
    );
    reportedAt = now;
    dropped = 0;
  });
  return server;
}
