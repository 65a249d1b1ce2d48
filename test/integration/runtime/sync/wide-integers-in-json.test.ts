/**
 * Whole numbers past 2^53 inside JSON read from a system arrive with their digits, on every engine:
 * a REST API's 64-bit ids (9007199254740993 and …992 are one double, so JSON.parse made the two
 * orders one: the second run "updated" the first with the second's data), and such numbers inside
 * a Json value, read from the API or from a Json column (PostgreSQL's jsonb reached the records
 * through pg's own JSON.parse). Such a number is read as the text of its digits, as an Integer field
 * past 2^53 already is.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

/** As the API writes it: numbers a double cannot hold, in a key and inside a nested object. */
const answer =
  '[{"id":9007199254740993,"name":"first","extra":{"ref":9007199254740995,"tags":[1234567890123456789]}},' +
  '{"id":9007199254740992,"name":"second","extra":{"ref":1.5,"big":1e20}}]';

let api: FixtureServer;
before(async () => {
  api = await startFixtureServer();
  api.route('GET', '/orders', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(answer);
  });
});
after(() => api.close());

await describeEachRuntimeDatabase('whole numbers past 2^53 in JSON from systems', (runtime, database) => {
  let connections: ConnectionPool;
  let snapshot: Snapshot;
  const run = (processId: string) => runProcess({ snapshot, connections, db: runtime() }, { processId });

  before(async () => {
    const admin = database().admin;
    for (const name of ['wide_orders', 'wide_copies']) {
      await admin.schema.createTable(name, (table) => {
        table.bigInteger('id').primary();
        table.string('name', 20);
        if (database().engine === 'postgres') table.jsonb('extra');
        else table.json('extra');
      });
    }
    const connection = { ...database().connection };
    if (database().engine === 'sqlite') connection.filename = join(database().baseDirectory, String(connection.filename));
    const object = (table: string) => `
    table: ${table}
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
      extra: { type: Json }`;
    snapshot = await definitionsSnapshot(
      `kind: System
id: shop
connector: http
connection: { baseUrl: "${api.base}/", retries: { max: 0 } }
objects:
  Order:
    list: { path: /orders }
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
      extra: { type: Json }
---
kind: System
id: store
connector: sql
connection: ${JSON.stringify(connection)}
objects:
  Order:${object('wide_orders')}
  Copy:${object('wide_copies')}
---
kind: Sync
id: orders-in
source: { system: shop, object: Order }
target: { system: store, object: Order }
mapping: '{ "id": id, "name": name, "extra": extra }'
match: { where: "id = #id#" }
---
kind: Sync
id: orders-copied
source: { system: store, object: Order }
target: { system: store, object: Copy }
mapping: '{ "id": id, "name": name, "extra": extra }'
match: { where: "id = #id#" }
`,
    );
    connections = new ConnectionPool({ baseDirectory: database().baseDirectory });
  });

  after(async () => {
    await connections?.closeAll();
    for (const name of ['wide_orders', 'wide_copies']) await database().admin.schema.dropTableIfExists(name);
  });

  /** The rows of `table` as text the database writes itself, so nothing on the way rounds them. */
  async function rows(table: string): Promise<Array<{ id: string; name: string; extra: unknown; text: string }>> {
    const admin = database().admin;
    const asText = (column: string) => (database().engine === 'postgres' ? `${column}::text` : `CAST(${column} AS CHAR)`);
    const found = (await admin(table)
      .select(admin.raw(`${asText('id')} AS id`), 'name', admin.raw(`${asText('extra')} AS extra`))
      .orderBy('name')) as Array<{ id: string; name: string; extra: string }>;
    return found.map((row) => ({ id: row.id, name: row.name, extra: JSON.parse(row.extra) as unknown, text: row.extra }));
  }

  const expected = [
    { id: '9007199254740993', name: 'first', extra: { ref: '9007199254740995', tags: ['1234567890123456789'] } },
    { id: '9007199254740992', name: 'second', extra: { ref: 1.5, big: 1e20 } },
  ];

  /** The rows as expected, the numbers a double cannot hold stored as strings of their digits (so JSON.parse here keeps them). */
  async function assertRows(table: string): Promise<void> {
    const found = await rows(table);
    assert.deepEqual(
      found.map(({ text: _text, ...row }) => row),
      expected,
    );
    assert.match(found[0]!.text, /"9007199254740995"/);
  }

  test('two orders whose ids one double holds are two records, created once and then found unchanged', async () => {
    const first = await run('orders-in');
    assert.equal(first.status, 'Complete', JSON.stringify(first.errors));
    assert.deepEqual(first.statistics, { read: 2, created: 2, updated: 0, skipped: 0, failed: 0 });
    await assertRows('wide_orders');
    const again = await run('orders-in');
    assert.equal(again.status, 'Complete', JSON.stringify(again.errors));
    assert.deepEqual(
      again.statistics,
      { read: 2, created: 0, updated: 0, skipped: 2, failed: 0, unchanged: 2 },
      JSON.stringify(again.errors),
    );
  });

  test('a Json column holding such numbers is read with their digits', async () => {
    // Written by the database from text, so the source holds the numbers themselves, not strings.
    const admin = database().admin;
    const json = '{"ref":9007199254740995,"tags":[1234567890123456789]}';
    await admin('wide_orders')
      .where({ name: 'first' })
      .update({ extra: database().engine === 'postgres' ? admin.raw('?::jsonb', [json]) : json });
    const outcome = await run('orders-copied');
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual(outcome.statistics, { read: 2, created: 2, updated: 0, skipped: 0, failed: 0 });
    await assertRows('wide_copies');
  });
});
