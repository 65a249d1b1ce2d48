/**
 * What the web client's tests share: a real HTTP server on a free loopback port, where each test
 * sets how it answers and every request that reached it is recorded (method, path with query,
 * headers, body) so a test can count hits and see exactly what was sent; a client of it; and the
 * assertions on the errors, down to what the log would hold of them.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import pino from 'pino';
import { ConnectorError, type ConnectorErrorCode } from '../../../../connectors/connector-error.js';
import { WebClient } from '../../../../connectors/web/index.js';
import type { SystemDefinition, SystemLimitsDefinition } from '../../../../definitions/types.js';

export interface Hit {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Answer = (hit: Hit, res: ServerResponse, req: IncomingMessage) => void;

export class RecordingServer {
  readonly hits: Hit[] = [];
  private answer: Answer = (_hit, res) => json(res, 200, {});
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const hit = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
        this.hits.push(hit);
        this.answer(hit, res, req);
      });
    });
  }

  static async start(): Promise<RecordingServer> {
    const server = new RecordingServer();
    await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  /** `http://127.0.0.1:<port>` */
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** From now on, answer with `answer`; forgets the hits so far. */
  answerWith(answer: Answer): void {
    this.answer = answer;
    this.hits.length = 0;
  }

  /** Hits whose path starts with `prefix`. */
  hitsOf(prefix: string): Hit[] {
    return this.hits.filter((hit) => hit.url.startsWith(prefix));
  }

  async close(): Promise<void> {
    // Requests a test left hanging (a timeout, an abort) and the client's kept-alive sockets.
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }
}

export function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

/** A client of system 'erp' at `<server>/odata/v4/crm/` with these connection settings (over the defaults). */
export function clientOf(
  server: RecordingServer,
  connection: Record<string, unknown> = {},
  limits: SystemLimitsDefinition = {},
): WebClient {
  const system: SystemDefinition = {
    kind: 'System',
    id: 'erp',
    connector: 'web-test',
    connection: { baseUrl: `${server.origin}/odata/v4/crm/`, ...connection },
    limits,
    objects: {},
    queries: {},
  };
  return WebClient.forSystem(system, 'test');
}

/** Asserts a ConnectorError of `code` whose message matches `message`, and returns it. */
export async function rejectsWith(promise: Promise<unknown>, code: ConnectorErrorCode, message: RegExp): Promise<ConnectorError> {
  const error = await promise.then(
    () => assert.fail('expected a ConnectorError'),
    (error: unknown) => error,
  );
  assert.ok(error instanceof ConnectorError, `not a ConnectorError: ${inspect(error)}`);
  assert.equal(error.code, code, error.message);
  assert.match(error.message, message);
  return error;
}

/** Everything the log would hold of an error: pino's serializer (message, stack, cause chain, properties). */
export function logged(error: unknown): string {
  return JSON.stringify(pino.stdSerializers.err(error as Error)) + inspect(error, { depth: 10 });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
