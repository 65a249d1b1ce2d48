/**
 * A client that hangs up before its answer is no server error: the request log says so at info
 * level with status 499 (nginx's "client closed request"), /metrics counts it as 499, and no error
 * line and no 500 are recorded. The free query it started stops: left alone, it would run until
 * the statement timeout and answer 504.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { QueryRequest } from '../../../../connectors/connection.js';
import { quickstartApp, tokens, type HttpApp, type LogLine } from '../../../support/http-app.js';

const queryRoute = '/api/RunConnectionGetQueryData/:system';
const minRoute = '/api/RunConnectionGetDataMin/:system/:object';

/** A system on the quickstart's CRM file whose free queries may run for a minute. */
const files = {
  'slow.yaml': `kind: System
id: slow
connector: sql
connection: { client: sqlite3, filename: "\${env:CRM_DB}" }
limits: { statementTimeout: 60s }
objects:
  Customer: { table: customers, key: [id], fields: { id: { type: Integer }, name: { type: String } } }
  Number: { table: numbers, key: [id], fields: { id: { type: Integer } } }
`,
};

/** A million rows made anew for every page read (a view): an answer streamed for a long while. */
const numbersView =
  'CREATE VIEW numbers AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000) SELECT i AS id FROM r';

/** Rows slow to make (each counts to a hundred thousand): the query runs until stopped or timed out. */
const slowRows =
  'WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000) SELECT (SELECT COUNT(*) FROM (WITH RECURSIVE s(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM s WHERE j < 100000 + r.i * 0) SELECT j FROM s)) + i AS id FROM r';

/** The value of one sample of the Prometheus text, or undefined. */
function sample(text: string, labels: Record<string, string>): number | undefined {
  const name = 'syncline_http_requests_total';
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const found = Object.fromEntries(
      [...line.slice(name.length + 1, line.lastIndexOf('}')).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('a client that hangs up', () => {
  let app: HttpApp;
  /** Resolved when the system `slow` is asked to run a free query: the client hangs up only then. */
  let queryStarted: { promise: Promise<void>; resolve: () => void };
  before(async () => {
    app = await quickstartApp({
      files,
      connections: (pool) => ({
        async get(system) {
          const connection = await pool.get(system);
          if (system.id !== 'slow') return connection;
          return new Proxy(connection, {
            get(target, name) {
              if (name === 'query') {
                return (request: QueryRequest) => {
                  queryStarted.resolve();
                  return target.query(request);
                };
              }
              const value: unknown = Reflect.get(target, name, target);
              return typeof value === 'function' ? value.bind(target) : value;
            },
          });
        },
      }),
    });
    await app.crm.raw(numbersView);
  });
  after(() => app.close());

  /** Opens a connection and writes `text` to it, resolving once it is sent. */
  async function send(text: string): Promise<Socket> {
    const socket = connect(Number(new URL(app.base).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    await new Promise<void>((resolve) => socket.write(text, () => resolve()));
    return socket;
  }

  /** The log lines from `from` on, once the request line of `route` is among them. */
  async function linesOfRequest(from: number, route = queryRoute): Promise<LogLine[]> {
    while (!app.logs.slice(from).some((line) => line.msg === 'request' && line.route === route)) await sleep(10);
    return app.logs.slice(from);
  }

  function assertGone(lines: LogLine[]): void {
    const request = lines.find((line) => line.msg === 'request')!;
    assert.deepEqual([request.status, request.level], [499, 30], JSON.stringify(request));
    assert.ok(
      lines.some((line) => line.level === 30 && /client closed the connection before the answer/.test(line.msg)),
      JSON.stringify(lines),
    );
    assert.deepEqual(
      lines.filter((line) => line.level >= 40),
      [],
      'no warning or error, no stack',
    );
    assert.ok(!JSON.stringify(lines).includes('AbortError'), JSON.stringify(lines));
  }

  const head = (length: number) =>
    `POST /api/RunConnectionGetQueryData/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tokens.admin}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it('during a free query: logged at info as gone (499), the query stopped, no 500 counted', async () => {
    const from = app.logs.length;
    let resolve = () => {};
    queryStarted = { promise: new Promise<void>((done) => (resolve = done)), resolve: () => resolve() };
    const body = JSON.stringify({ columns: [{ Name: 'id', ColumnType: 'Integer' }], Statement: slowRows });
    const socket = await send(head(Buffer.byteLength(body)) + body);
    await queryStarted.promise;
    socket.destroy();
    assertGone(await linesOfRequest(from));
  });

  it('while its body is being read: the same', async () => {
    const from = app.logs.length;
    const socket = await send(`${head(1000)}{"columns": [`);
    socket.destroy();
    assertGone(await linesOfRequest(from));
  });

  it('during a streamed answer, after its first bytes: logged and counted as 499 once the stream stops', async () => {
    const from = app.logs.length;
    const socket = await send(
      `POST /api/RunConnectionGetDataMin/slow/Number HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tokens.admin}\r\nContent-Length: 0\r\n\r\n`,
    );
    const first = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
    assert.match(first, /^HTTP\/1\.1 200 /);
    socket.destroy();
    const lines = await linesOfRequest(from, minRoute);
    const request = lines.find((line) => line.msg === 'request')!;
    assert.deepEqual([request.status, request.level], [499, 30], JSON.stringify(request));
    assert.deepEqual(
      lines.filter((line) => line.level >= 40),
      [],
      'no warning or error, no stack',
    );
  });

  it('/metrics counts each as 499 and none as 500', async () => {
    const text = (await app.get('/metrics', null)).text;
    assert.equal(sample(text, { method: 'POST', route: queryRoute, status: '499' }), 2, text);
    assert.equal(sample(text, { method: 'POST', route: minRoute, status: '499' }), 1, text);
    for (const route of [queryRoute, minRoute])
      for (const status of ['200', '500']) assert.equal(sample(text, { method: 'POST', route, status }), undefined, `${route} ${status}`);
  });
});
