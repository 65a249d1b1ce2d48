/**
 * Which errors mean that the runtime database cannot be used right now (503 with Retry-After,
 * naming the runtime database and nothing of the driver) and which are something else: real
 * errors made by the drivers where no server is needed — a closed port, a pool with no free
 * connection, a closed pool, an SQLite file that is full, locked or read-only — and the codes of
 * failures that need a server in trouble (shutdown, disk full, too many connections) as the
 * drivers report them. The outage tests (test/faults/runtime-database-outage.test.ts) meet the
 * real PostgreSQL and disk-full failures under a running server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import knexFactory, { type Knex } from 'knex';
import { runtimeDatabaseFailure, RuntimeDatabaseClosedError } from '../../../../runtime/database/database-failure.js';
import { parseDatabaseUrl } from '../../../../runtime/database/database-url.js';
import { migrate } from '../../../../runtime/database/migrate.js';
import { openDatabase } from '../../../../runtime/database/open-database.js';
import { toHttpProblem } from '../../../../runtime/errors.js';
import { enqueue } from '../../../../runtime/queue/enqueue.js';

const dir = mkdtempSync(join(tmpdir(), 'syncline-failure-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const quiet = { warn() {}, error() {}, deprecate() {}, debug() {} };

async function caught(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

/** The answer for `error`: a 503 naming the runtime database, with Retry-After, and none of the driver's words. */
function assertAnsweredUnavailable(error: unknown, reason: RegExp): void {
  const problem = toHttpProblem(error);
  assert.equal(problem.status, 503);
  assert.equal(problem.code, 'database-unavailable');
  assert.match(problem.extra.headers?.['Retry-After'] ?? '', /^\d+$/);
  assert.match(problem.detail, /^The runtime database cannot be used right now \(/);
  assert.match(problem.detail, reason);
  const driverText = (error as Error).message;
  if (driverText) assert.ok(!problem.detail.includes(driverText), `the detail repeats the driver: ${problem.detail}`);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function sqlite(file: string, options: Partial<Knex.Config> = {}): Knex {
  return knexFactory({ client: 'sqlite3', connection: { filename: join(dir, file) }, useNullAsDefault: true, log: quiet, ...options });
}

test('a PostgreSQL or MariaDB server that refuses the connection', async () => {
  const port = await closedPort();
  for (const [client, url] of [
    ['pg', `postgres://postgres@127.0.0.1:${port}/x`],
    ['mysql2', `mysql://root@127.0.0.1:${port}/x`],
  ] as const) {
    const knex = knexFactory({
      client,
      connection: client === 'pg' ? { connectionString: url } : ({ uri: url } as never),
      log: quiet,
      pool: { min: 0, max: 1 },
    });
    const error = await caught(() => knex.raw('SELECT 1'));
    await knex.destroy();
    assert.equal(runtimeDatabaseFailure(error)?.kind, 'unreachable', client);
    assertAnsweredUnavailable(error, /connection refused/);
    assert.ok(!toHttpProblem(error).detail.includes(String(port)));
  }
});

test('no pooled connection free in time, and a pool closed under its callers', async () => {
  const knex = sqlite('pool.db', { pool: { min: 1, max: 1 }, acquireConnectionTimeout: 100 });
  let release!: () => void;
  const held = knex.transaction(async () => new Promise<void>((resolve) => (release = resolve)));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const timeout = await caught(() => knex.raw('SELECT 1'));
  release();
  await held;
  assert.equal((timeout as Error).name, 'KnexTimeoutError');
  assert.equal(runtimeDatabaseFailure(timeout)?.kind, 'busy');
  assertAnsweredUnavailable(timeout, /no connection became free in time/);

  await knex.destroy();
  const closed = await caught(() => knex.raw('SELECT 1'));
  assert.equal(runtimeDatabaseFailure(closed)?.kind, 'closed');
});

test('an SQLite file that is full, locked past its busy timeout, or read-only', async () => {
  // A page limit makes the file full the way a full disk does (same result code); the outage test fills a real disk.
  const full = sqlite('full.db');
  await full.raw('CREATE TABLE t (v TEXT)');
  await full.raw('PRAGMA max_page_count = 3');
  const fullError = await caught(() => full('t').insert({ v: 'x'.repeat(100_000) }));
  await full.destroy();
  assert.match(String((fullError as { code?: string }).code), /^SQLITE_FULL/);
  assert.equal(runtimeDatabaseFailure(fullError)?.kind, 'full');
  assertAnsweredUnavailable(fullError, /the disk is full/);

  const first = sqlite('locked.db');
  await first.raw('CREATE TABLE t (v TEXT)');
  const second = sqlite('locked.db', {
    pool: {
      min: 1,
      max: 1,
      afterCreate: (connection: { configure(o: string, v: number): void }, done: (e: null, c: unknown) => void) => {
        connection.configure('busyTimeout', 50);
        done(null, connection);
      },
    } as never,
  });
  let release!: () => void;
  const holding = first.transaction(async (trx) => {
    await trx('t').insert({ v: 'held' });
    await new Promise<void>((resolve) => (release = resolve));
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const busy = await caught(() => second('t').insert({ v: 'waits' }));
  release();
  await holding;
  await Promise.all([first.destroy(), second.destroy()]);
  assert.equal(runtimeDatabaseFailure(busy)?.kind, 'busy');
  assertAnsweredUnavailable(busy, /the database is locked/);

  // query_only refuses writes as a read-only file does (SQLITE_READONLY); root would write a file without write permission.
  const readOnly = sqlite('locked.db', { pool: { min: 1, max: 1 } });
  await readOnly.raw('PRAGMA query_only = ON');
  const refused = await caught(() => readOnly('t').insert({ v: 'no' }));
  await readOnly.destroy();
  assert.equal(runtimeDatabaseFailure(refused)?.kind, 'read-only');
  assertAnsweredUnavailable(refused, /accepts no writes/);
});

test('a queue item handed to a runtime database that is closing', async () => {
  const db = await openDatabase(parseDatabaseUrl(`sqlite:${join(dir, 'runtime.db')}`));
  await migrate(db);
  await enqueue(db, { processId: 'p', startType: 'manual' });
  await db.close();
  const error = await caught(() => enqueue(db, { processId: 'p', startType: 'manual' }));
  assert.ok(error instanceof RuntimeDatabaseClosedError);
  assertAnsweredUnavailable(error, /closing/);
});

test('a runtime database whose tables are gone (created anew while running): 503 saying to migrate', async () => {
  const db = await openDatabase(parseDatabaseUrl(`sqlite:${join(dir, 'empty.db')}`));
  try {
    const error = await caught(() => enqueue(db, { processId: 'p', startType: 'manual' }));
    assert.equal(runtimeDatabaseFailure(error)?.kind, 'not-migrated');
    assertAnsweredUnavailable(error, /its tables are missing .*; run syncline migrate/);
  } finally {
    await db.close();
  }
  for (const shape of [
    { code: '42P01', message: 'relation "queue_items" does not exist' },
    { code: 'ER_NO_SUCH_TABLE', errno: 1146, message: "Table 'syncline.queue_items' doesn't exist" },
  ]) {
    assert.equal(runtimeDatabaseFailure(Object.assign(new Error(shape.message), shape))?.kind, 'not-migrated', shape.message);
  }
});

test('failures of a server in trouble, by the codes the drivers report', () => {
  const cases: Array<[error: Record<string, unknown>, kind: string]> = [
    [{ code: '57P01', message: 'terminating connection due to administrator command' }, 'unreachable'],
    [{ code: '57P03', message: 'the database system is starting up' }, 'unreachable'],
    [{ code: '08006', message: 'connection failure' }, 'unreachable'],
    [{ message: 'Connection terminated unexpectedly' }, 'unreachable'],
    [{ code: '53100', message: 'could not extend file: No space left on device' }, 'full'],
    [{ code: '53300', message: 'sorry, too many clients already' }, 'busy'],
    [{ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, 'read-only'],
    [{ code: '28P01', message: 'password authentication failed for user "syncline"' }, 'login'],
    [{ code: 'PROTOCOL_CONNECTION_LOST', fatal: true, message: 'Connection lost: The server closed the connection.' }, 'unreachable'],
    [{ code: 'ER_CON_COUNT_ERROR', errno: 1040, message: 'Too many connections' }, 'busy'],
    [{ code: 'ER_DISK_FULL', errno: 1021, message: 'Disk full (/tmp/#sql); waiting for someone to free some space...' }, 'full'],
    [
      { code: 'ER_OPTION_PREVENTS_STATEMENT', errno: 1290, message: 'The MariaDB server is running with the --read-only option' },
      'read-only',
    ],
    [{ code: 'SQLITE_IOERR_WRITE', message: 'SQLITE_IOERR: disk I/O error' }, 'file'],
  ];
  for (const [shape, kind] of cases) {
    const error = Object.assign(new Error(String(shape.message)), shape);
    assert.equal(runtimeDatabaseFailure(error)?.kind, kind, JSON.stringify(shape));
    assert.equal(toHttpProblem(error).status, 503, JSON.stringify(shape));
  }
});

test('errors about the statement or its values are not outages', () => {
  const cases: Array<Record<string, unknown>> = [
    { code: '23505', message: 'duplicate key value violates unique constraint' },
    { code: '42601', message: 'syntax error at or near "x"' },
    { code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0x00' },
    { code: '08P01', message: 'bind message supplies 0 parameters, but prepared statement "" requires 1' },
    { code: 'ER_DUP_ENTRY', errno: 1062, message: "Duplicate entry '1' for key 'PRIMARY'" },
    { code: 'SQLITE_CONSTRAINT', message: 'SQLITE_CONSTRAINT: UNIQUE constraint failed: t.id' },
    { message: 'some bug' },
  ];
  for (const shape of cases) {
    const error = Object.assign(new Error(String(shape.message)), shape);
    assert.equal(runtimeDatabaseFailure(error), undefined, JSON.stringify(shape));
    assert.equal(toHttpProblem(error).status, 500, JSON.stringify(shape));
  }
});
