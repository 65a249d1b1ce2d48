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
 * A request Node refuses before the application sees it (the timeouts above, headers over Node's
 * 16 KiB, bytes that are not HTTP) is answered problem+json too, as every other error is — with
 * the status Node itself would answer — and the connection is closed.
 *
 * Node looks for expired connections on a timer (every 30 s by its default), which would let a
 * slow client stay up to 30 s past its time; here it looks four times per headers timeout, at most
 * once a second.
 */
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import { HttpProblem } from '../errors.js';
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
      // Node's own refusal of an HTTP/1.1 request without Host is a bare 400 the request log never
      // sees; the problem edge refuses it instead (problem-middleware.ts).
      requireHostHeader: false,
    },
    app.callback(),
  );
  server.on('clientError', answerClientError);
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

/** Node's reason phrases, for the status line. */
const reasons: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

function clientProblem(code: string | undefined): HttpProblem {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new HttpProblem(
      'request-timeout',
      'The request line, headers and body did not all arrive in time; send the whole request at once.',
    );
  }
  if (code === 'HPE_HEADER_OVERFLOW')
    return new HttpProblem('headers-too-large', 'The request headers are larger than 16 KiB; send fewer or shorter headers.');
  return new HttpProblem('invalid-request', 'The request is not valid HTTP/1.1.');
}

/**
 * Answers what Node refused (its 'clientError'), as Node would but as problem+json: only while no
 * answer of the application's has started on the connection (Node's own rule), then closes it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A peer that reset or closed the connection hears nothing more.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE' && socket.writable && !inFlight?.headersSent) {
    const problem = clientProblem(error.code);
    const body = JSON.stringify(problem.toJSON());
    socket.write(
      `HTTP/1.1 ${problem.status} ${reasons[problem.status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
