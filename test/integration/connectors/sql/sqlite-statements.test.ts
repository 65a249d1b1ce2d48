/**
 * SQLite statements kept for reuse (connectors/sql/engines/sqlite-statements.ts), through Knex with
 * the clients that keep them: a query answers as with a fresh statement, whatever ran before on
 * the connection — a failed preparation, a schema change by another connection, more texts than
 * are kept, a write's EXPLAIN inside a transaction — and the connection still closes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import knexFactory, { type Knex } from 'knex';
import { SqliteImmediateClient, SqliteTimedClient } from '../../../../connectors/sql/engines/sqlite-clients.js';
import { cacheSize } from '../../../../connectors/sql/engines/sqlite-statements.js';

const folder = mkdtempSync(join(tmpdir(), 'syncline-sqlite-statements-'));
const filename = join(folder, 'kept.sqlite');

/** One connection, as the runtime database and a System's write pool have. */
function open(client: typeof Knex.Client = SqliteImmediateClient as unknown as typeof Knex.Client): Knex {
  return knexFactory({ client, connection: { filename }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
}

let knex: Knex;
let other: Knex;
before(async () => {
  knex = open();
  other = knexFactory({ client: 'sqlite3', connection: { filename }, useNullAsDefault: true });
  await other.schema.createTable('items', (table) => {
    table.integer('id').primary();
    table.string('name');
  });
});
after(async () => {
  await Promise.all([knex.destroy(), other.destroy()]);
  rmSync(folder, { recursive: true, force: true });
});

const names = async (db: Knex = knex) => (await db('items').select('name').orderBy('id')).map((row) => row.name);

test('the same query run again with other values answers for those values', async () => {
  await knex('items').insert([
    { id: 1, name: 'one' },
    { id: 2, name: 'two' },
  ]);
  for (const [id, name] of [
    [1, 'one'],
    [2, 'two'],
    [3, undefined],
  ] as const) {
    const row = await knex('items').where({ id }).first();
    assert.equal(row?.name, name);
  }
  await knex('items').delete();
});

test('a statement that fails to prepare gives SQLite’s error, and the same text works once it can', async () => {
  await assert.rejects(knex('later').select('*'), /SQLITE_ERROR: no such table: later/);
  await other.schema.createTable('later', (table) => table.integer('id'));
  await other('later').insert({ id: 7 });
  assert.deepEqual(await knex('later').select('*'), [{ id: 7 }]);
});

test('a table dropped and made again by another connection is read anew', async () => {
  await other('items').insert({ id: 1, name: 'before' });
  assert.deepEqual(await names(), ['before']);
  await other.schema.dropTable('items');
  await assert.rejects(names(), /no such table: items/);
  await other.schema.createTable('items', (table) => {
    table.integer('id').primary();
    table.string('label');
    table.string('name');
  });
  await other('items').insert({ id: 2, name: 'after', label: 'x' });
  assert.deepEqual(await names(), ['after']);
  await other('items').delete();
});

test('more texts than are kept: each still answers, the oldest are finalized', async () => {
  for (let round = 0; round < 2; round += 1) {
    for (let i = 0; i < cacheSize + 10; i += 1) {
      const [row] = (await knex.raw(`SELECT ${i} AS n`)) as Array<{ n: number }>;
      assert.equal(row?.n, i);
    }
  }
});

test('inside a transaction, an EXPLAIN of a write and a RETURNING write leave it free to commit', async () => {
  await knex.transaction(async (trx) => {
    await trx.raw('EXPLAIN QUERY PLAN UPDATE items SET name = ? WHERE id = ?', ['x', 1]);
    await trx('items').insert({ id: 5, name: 'five' }).returning('id');
    await trx('items').insert({ id: 6, name: 'six' });
    await trx('items').where({ id: 5 }).update({ name: 'FIVE' });
  });
  assert.deepEqual(await names(other), ['FIVE', 'six']);
  await knex('items').delete();
});

test('a reader with a statement timeout reads through kept statements too, and every client closes', async () => {
  const reader = knexFactory({
    client: SqliteTimedClient,
    connection: { filename },
    useNullAsDefault: true,
    statementTimeoutMs: 5000,
    pool: { min: 1, max: 1 },
  } as Knex.Config);
  try {
    await other('items').insert({ id: 9, name: 'nine' });
    assert.deepEqual(await names(reader), ['nine']);
    assert.deepEqual(await names(reader), ['nine']);
  } finally {
    await closesCleanly(reader);
  }
  const writer = open();
  await names(writer);
  await closesCleanly(writer);
});

/**
 * Destroys `db`, failing if a connection would not close: SQLite refuses while statements are
 * left unfinalized, and Knex's pool only reports that as an event.
 */
async function closesCleanly(db: Knex): Promise<void> {
  const failures: unknown[] = [];
  const pool = (db.client as { pool: { on(event: string, listener: (...args: unknown[]) => void): void } }).pool;
  pool.on('destroyFail', (_id, _resource, error) => failures.push(error));
  await db.destroy();
  assert.deepEqual(failures, []);
}

/** A raw connection of the driver, for holding SQLite's write lock from outside Knex. */
async function rawConnection(): Promise<{ exec(sql: string): Promise<void>; close(): Promise<void> }> {
  const sqlite3 = (await import('sqlite3')).default;
  const db = new sqlite3.Database(filename);
  return {
    exec: (sql) => new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve()))),
    close: () => new Promise((resolve) => db.close(() => resolve())),
  };
}

test('a write that met another writer’s lock (SQLITE_BUSY) leaves the connection able to commit later', async () => {
  await other('items').delete();
  const waiting = open();
  try {
    await waiting.raw('PRAGMA busy_timeout = 50');
    const holder = await rawConnection();
    await holder.exec("BEGIN IMMEDIATE; INSERT INTO items (id, name) VALUES (10, 'holder')");
    // A kept statement (a write answering rows) fails with SQLITE_BUSY while the lock is held…
    await assert.rejects(waiting('items').insert({ id: 11, name: 'busy' }).returning('id'), /SQLITE_BUSY/);
    await holder.exec('COMMIT');
    await holder.close();
    // …and the connection's next transaction commits, seen by another connection: the failed
    // statement used to stay active, and every COMMIT after it failed ("SQL statements in progress").
    await waiting.transaction(async (trx) => {
      await trx('items').insert({ id: 12, name: 'after' });
    });
    assert.deepEqual(await names(other), ['holder', 'after']);
  } finally {
    await waiting.destroy();
    await other('items').delete();
  }
});

test('a COMMIT SQLite refuses is rolled back: the connection is not left inside the transaction', async () => {
  await other('items').delete();
  const raw = (await knex.client.acquireConnection()) as {
    prepare(sql: string): { get(callback: () => void): void; finalize(callback: () => void): void };
  };
  // A write stepped once and left active on the connection, as a failed kept statement used to be:
  // SQLite refuses any COMMIT while it is.
  const active = raw.prepare("INSERT INTO items (id, name) VALUES (20, 'a'), (21, 'b') RETURNING id");
  await new Promise<void>((resolve) => active.get(() => resolve()));
  await knex.client.releaseConnection(raw);
  await assert.rejects(
    knex.transaction(async (trx) => {
      await trx('items').insert({ id: 22, name: 'refused' });
    }),
    /SQL statements in progress/,
  );
  await new Promise<void>((resolve) => active.finalize(() => resolve()));
  // The refused transaction's write is undone, and what comes next is committed, not swallowed by it.
  await knex('items').insert({ id: 23, name: 'next' });
  const seen = await names(other);
  assert.ok(seen.includes('next') && !seen.includes('refused'), `another connection sees ${JSON.stringify(seen)}`);
  await other('items').delete();
});
