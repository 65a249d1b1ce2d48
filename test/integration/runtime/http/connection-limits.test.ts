/**
 * The connection limits of `syncline serve` (item: a server that lets slow clients hold it):
 * the settings as flags and environment, a client that trickles its headers closed after the
 * headers timeout, and connections past the cap refused while the open ones are still answered.
 * Real `serve` processes with short limits, and raw sockets for the slow and the idle clients.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it, test } from 'node:test';
import { defaults, serveSettings, SettingsError } from '../../../../runtime/settings.js';
import { projectRoot, startCli, type CliProcess } from '../../../support/cli-process.js';

test('connection limits have defaults, and come from flags before the environment', () => {
  const none = serveSettings({}, {});
  assert.deepEqual(
    [none.headersTimeoutMs, none.requestTimeoutMs, none.keepAliveTimeoutMs, none.maxConnections],
    [defaults.headersTimeoutMs, defaults.requestTimeoutMs, defaults.keepAliveTimeoutMs, defaults.maxConnections],
  );
  const env = {
    SYNCLINE_HEADERS_TIMEOUT: '5s',
    SYNCLINE_REQUEST_TIMEOUT: '1m',
    SYNCLINE_KEEP_ALIVE_TIMEOUT: '65s',
    SYNCLINE_MAX_CONNECTIONS: '200',
  };
  const fromEnv = serveSettings({}, env);
  assert.deepEqual(
    [fromEnv.headersTimeoutMs, fromEnv.requestTimeoutMs, fromEnv.keepAliveTimeoutMs, fromEnv.maxConnections],
    [5000, 60_000, 65_000, 200],
  );
  const fromFlags = serveSettings({ headersTimeout: '2500', maxConnections: '10' }, env);
  assert.deepEqual([fromFlags.headersTimeoutMs, fromFlags.maxConnections], [2500, 10]);
});

test('connection limits that cannot work are refused with the setting named', () => {
  assert.throws(
    () => serveSettings({ maxConnections: '0' }, {}),
    (error: Error) => error instanceof SettingsError && /--max-connections must be a whole number from 1/.test(error.message),
  );
  assert.throws(() => serveSettings({}, { SYNCLINE_HEADERS_TIMEOUT: 'soon' }), /SYNCLINE_HEADERS_TIMEOUT must be a duration such as 500ms/);
  assert.throws(() => serveSettings({ headersTimeout: '10ms' }, {}), /--headers-timeout must be at least 100ms/);
  assert.throws(
    () => serveSettings({ headersTimeout: '1m', requestTimeout: '30s' }, {}),
    /--headers-timeout \(60000ms\) must not be longer than --request-timeout \(30000ms\)/,
  );
});

/** A raw connection: requests written by hand, everything received kept, and when it closed. */
interface Connection {
  socket: Socket;
  received(): string;
  closed: Promise<void>;
  /** Sends a GET with keep-alive and resolves with the answer's status line once the whole answer is in. */
  get(path: string): Promise<string>;
}

async function open(port: number): Promise<Connection> {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  let waiting: (() => void) | undefined;
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    data += chunk;
    waiting?.();
  });
  socket.on('error', () => {}); // a refused connection may be reset; `closed` tells the story
  const closed = once(socket, 'close').then(() => undefined);
  await once(socket, 'connect');
  return {
    socket,
    received: () => data,
    closed,
    async get(path) {
      const start = data.length;
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
      for (;;) {
        const answer = data.slice(start);
        const length = /\r\ncontent-length: (\d+)\r\n/i.exec(answer);
        const end = answer.indexOf('\r\n\r\n');
        if (length && end >= 0 && answer.length >= end + 4 + Number(length[1])) return answer.slice(0, answer.indexOf('\r\n'));
        if (socket.destroyed) throw new Error(`the connection closed before the answer to ${path}; received: ${JSON.stringify(answer)}`);
        await Promise.race([new Promise<void>((resolve) => (waiting = resolve)), closed]);
      }
    },
  };
}

async function serve(dir: string, flags: string[]): Promise<{ server: CliProcess; port: number }> {
  const server = startCli(
    [
      'serve',
      '--definitions',
      join(dir, 'definitions'),
      '--db',
      `sqlite:${join(dir, 'runtime.db')}`,
      '--port',
      '0',
      '--no-daemon',
      ...flags,
    ],
    {
      env: { CRM_DB: join(dir, 'crm.sqlite'), ERP_DB: join(dir, 'erp.sqlite') },
    },
  );
  const line = await server.waitForLog((entry) => /^serving on /.test(entry.msg));
  return { server, port: Number(new URL(line.msg.replace('serving on ', '')).port) };
}

describe('syncline serve connection limits', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'syncline-limits-'));
    const definitions = join(dir, 'definitions');
    await mkdir(definitions);
    for (const name of await readdir(join(projectRoot, 'examples/quickstart'))) {
      if (name.endsWith('.yaml')) await copyFile(join(projectRoot, 'examples/quickstart', name), join(definitions, name));
    }
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('closes a connection whose headers do not arrive within the headers timeout, with 408', { timeout: 60_000 }, async () => {
    const { server, port } = await serve(dir, ['--headers-timeout', '300ms', '--request-timeout', '2s']);
    try {
      const slow = await open(port);
      slow.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // …and never the blank line
      const healthy = await open(port);
      assert.match(await healthy.get('/healthz'), /^HTTP\/1\.1 200 /, 'other clients are answered meanwhile');
      await slow.closed;
      assert.match(slow.received(), /^HTTP\/1\.1 408 /);
      // As every other error: problem+json.
      assert.match(slow.received(), /\r\nContent-Type: application\/problem\+json\r\n/);
      assert.match(slow.received(), /"type":"urn:syncline:problem:request-timeout"/);
      healthy.socket.destroy();
    } finally {
      await server.stop();
    }
  });

  it('answers bytes that are not HTTP with 400 and headers over 16 KiB with 431, as problem+json', { timeout: 60_000 }, async () => {
    const { server, port } = await serve(dir, []);
    try {
      const garbage = await open(port);
      garbage.socket.write('HELLO THERE\r\n\r\n');
      await garbage.closed;
      assert.match(garbage.received(), /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.match(garbage.received(), /"type":"urn:syncline:problem:invalid-request".*"detail":"The request is not valid HTTP\/1\.1\."/);
      const oversized = await open(port);
      oversized.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`);
      await oversized.closed;
      assert.match(oversized.received(), /^HTTP\/1\.1 431 /);
      const body = oversized.received().split('\r\n\r\n')[1]!;
      assert.equal(JSON.parse(body).type, 'urn:syncline:problem:headers-too-large');
      // Without Host, an HTTP/1.1 request is refused as problem+json too (Node's own refusal was a bare 400).
      const hostless = await open(port);
      hostless.socket.write('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
      await hostless.closed;
      assert.match(hostless.received(), /^HTTP\/1\.1 400 /);
      assert.match(
        hostless.received(),
        /"type":"urn:syncline:problem:invalid-request".*"detail":"An HTTP\/1\.1 request needs a Host header/,
      );
      const healthy = await open(port);
      assert.match(await healthy.get('/healthz'), /^HTTP\/1\.1 200 /, 'the server goes on answering');
      healthy.socket.destroy();
    } finally {
      await server.stop();
    }
  });

  it('refuses connections past the cap and goes on answering the open ones', { timeout: 60_000 }, async () => {
    const { server, port } = await serve(dir, ['--max-connections', '3', '--keep-alive-timeout', '1m']);
    try {
      // Three connections the server has accepted and answered, kept open.
      const held = [await open(port), await open(port), await open(port)];
      for (const connection of held) assert.match(await connection.get('/healthz'), /^HTTP\/1\.1 200 /);

      const refused = await open(port);
      await refused.closed;
      assert.equal(refused.received(), '', 'closed without an answer');
      assert.match(await held[0]!.get('/readyz'), /^HTTP\/1\.1 200 /, 'an open connection is still answered');
      await server.waitForLog((entry) => /^connection limit reached/.test(entry.msg) && entry.maxConnections === 3);

      // Once one ends, a new connection is let in (the server counts it gone a moment after the close).
      held[2]!.socket.end();
      await held[2]!.closed;
      for (let attempt = 1; ; attempt += 1) {
        const next = await open(port);
        const status = await next.get('/healthz').catch(() => undefined);
        next.socket.destroy();
        if (status !== undefined) {
          assert.match(status, /^HTTP\/1\.1 200 /);
          break;
        }
        assert.ok(attempt < 50, 'no connection was let in after one ended');
        await sleep(20);
      }
      for (const connection of held) connection.socket.destroy();
    } finally {
      await server.stop();
    }
  });
});
