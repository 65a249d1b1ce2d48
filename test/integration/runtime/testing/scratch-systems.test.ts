/**
 * The scratch world of webhook and sync cases: every System of the definitions becomes a `sql`
 * system on a SQLite file of the case's own, with the same objects, fields, keys and typed groups,
 * and nothing of a case reaches a real system or the network — not even for systems that point at
 * a PostgreSQL server, an OData service or a REST API.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import knexFactory from 'knex';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { runSyncCase } from '../../../../runtime/testing/cases/sync-case.js';
import { runWebhookCase } from '../../../../runtime/testing/cases/webhook-case.js';
import { openScratch, type Scratch } from '../../../../runtime/testing/scratch/scratch-runtime.js';
import { scratchSystem } from '../../../../runtime/testing/scratch/scratch-system.js';
import { failedPaths, failuresOf, fixtureDirectory, loadSnapshot, run, syncCase, webhookCase } from './case-support.js';

describe('scratch systems', () => {
  let snapshot: Snapshot;
  let directory: string;
  let scratch: Scratch;
  before(async () => {
    snapshot = await loadSnapshot(fixtureDirectory);
    directory = mkdtempSync(join(tmpdir(), 'syncline-scratch-'));
    scratch = await openScratch(snapshot, directory);
  });
  after(async () => {
    await scratch.close();
    rmSync(directory, { recursive: true, force: true });
  });

  test("every system is a sql system on a file in the scratch directory; capabilities stay the real connector's", () => {
    for (const [id, entry] of scratch.snapshot.systems) {
      assert.equal(entry.definition.connector, 'sql', id);
      assert.equal(entry.definition.connection.client, 'sqlite3', id);
      assert.ok(String(entry.definition.connection.filename).startsWith(directory), id);
      assert.deepEqual(entry.capabilities, snapshot.systems.get(id)!.capabilities, id);
    }
    assert.equal(scratch.snapshot.systems.get('ledger')!.capabilities.filterPushDown, false);
    assert.equal(scratch.snapshot.syncs, snapshot.syncs);
  });

  test('a sql system keeps its objects and queries; a schema-qualified table loses its schema', () => {
    const shop = scratchSystem(snapshot.systems.get('shop')!.definition, '/scratch/shop.sqlite');
    assert.equal(shop.definition.objects.Order!.table, 'sales_orders');
    assert.deepEqual(shop.definition.objects.Customer!.groups, snapshot.systems.get('shop')!.definition.objects.Customer!.groups);
    assert.deepEqual(Object.keys(shop.definition.queries), ['vipCustomers', 'customerCount']);
    assert.equal(shop.definition.objects.Order!.fields.id!.readOnly, true);
    assert.equal(shop.loader.objects.Order!.fields.id!.readOnly, undefined, 'fixtures are loaded past read-only fields');
    assert.deepEqual([...shop.refused], []);
  });

  test('an OData object becomes a table named after it, its typed group a child table as the sql connector models groups', () => {
    const crm = scratchSystem(snapshot.systems.get('crm')!.definition, '/scratch/crm.sqlite');
    const contact = crm.definition.objects.Contact!;
    assert.equal(contact.table, 'Contact');
    assert.deepEqual(contact.key, ['ContactId']);
    assert.deepEqual(contact.groups!.addresses, {
      types: ['home', 'work'],
      fields: snapshot.systems.get('crm')!.definition.objects.Contact!.groups!.addresses!.fields,
      table: 'Contact_addresses',
      foreignKey: 'parent_key',
      typeField: 'type',
    });
    assert.equal(crm.definition.objects.Membership, undefined);
    assert.match(crm.refused.get('object Membership')!, /typed groups \(notes\) and a key of 2 fields \(ContactId, Club\)/);
    assert.match(crm.refused.get('query recentContacts')!, /odata connector's own language/);
  });

  test('a group field named like the generated columns pushes them aside', () => {
    const system = scratchSystem(
      {
        kind: 'System',
        id: 'api',
        connector: 'http',
        connection: {},
        objects: {
          Item: {
            key: ['id'],
            fields: { id: { type: 'Integer' } },
            groups: { tags: { types: ['a'], fields: { type: { type: 'String' }, parent_key: { type: 'Integer' } } } },
          },
          Item_tags: { key: ['id'], fields: { id: { type: 'Integer' } } },
        },
        queries: {},
      },
      '/scratch/api.sqlite',
    );
    const group = system.definition.objects.Item!.groups!.tags!;
    assert.deepEqual([group.foreignKey, group.typeField, group.table], ['parent_key_2', 'type_2', 'Item_tags']);
    assert.equal(system.definition.objects.Item_tags!.table, 'Item_tags_2');
  });

  test('tables carry the declared columns, keys NOT NULL, a single Integer key generated', async () => {
    const shop = scratch.snapshot.systems.get('shop')!.definition;
    const knex = knexFactory({ client: 'sqlite3', connection: { filename: String(shop.connection.filename) }, useNullAsDefault: true });
    try {
      const columns = async (table: string) =>
        ((await knex.raw('PRAGMA table_info(??)', [table])) as Array<{ name: string; notnull: number; pk: number }>).map(
          (column) => `${column.name}${column.pk ? ' pk' : ''}${column.notnull ? ' not null' : ''}`,
        );
      assert.deepEqual(await columns('sales_orders'), ['id pk not null', 'number', 'customer', 'total', 'status', 'placed_at']);
      assert.deepEqual(await columns('customer_addresses'), ['customer_email pk not null', 'kind pk not null', 'city', 'country']);
    } finally {
      await knex.destroy();
    }
  });

  test('what the runtime logs as an error is kept for the case; lesser lines are not', () => {
    scratch.log.warn('a warning');
    scratch.log.error({ err: new Error('the disk is full') }, 'the call failed');
    assert.deepEqual(scratch.loggedErrors(), ['the call failed: the disk is full']);
  });

  test('fixture rows go in as records with their groups and come back as the connector reads them', async () => {
    const results = await scratch.load('crm', 'Contact', [
      { ContactId: 'c1', Name: 'Ada', Active: 1, Since: '2024-02-29', addresses: { work: { City: 'Leeds' } } },
    ]);
    assert.deepEqual(results, [{ action: 'created', key: { ContactId: 'c1' } }]);
    assert.deepEqual(await scratch.rows('crm', 'Contact'), [
      {
        ContactId: 'c1',
        Name: 'Ada',
        Email: null,
        Active: true,
        Since: '2024-02-29',
        addresses: { work: { City: 'Leeds', Country: null } },
      },
    ]);
    const [generated] = await scratch.load('shop', 'Order', [{ number: 'O-1', placed_at: '2024-03-01T10:00:00+01:00' }]);
    assert.deepEqual(generated, { action: 'created', key: { id: 1 } });
    assert.deepEqual(
      (await scratch.rows('shop', 'Order')).map((row) => [row.id, row.placed_at]),
      [[1, '2024-03-01T09:00:00.000Z']],
    );
  });
});

describe('nothing of a case reaches a real system', () => {
  let snapshot: Snapshot;
  const attempts: string[] = [];
  const connect = net.Socket.prototype.connect;
  before(async () => {
    snapshot = await loadSnapshot(fixtureDirectory);
    // Every TCP connection of this process (pg, undici's fetch) goes through here.
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      attempts.push(JSON.stringify(args[0]));
      return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
    } as typeof connect;
  });
  after(() => {
    net.Socket.prototype.connect = connect;
  });

  test('the watch on connections sees one', async () => {
    const socket = net.connect(1, '127.0.0.1').on('error', () => undefined);
    socket.destroy();
    assert.equal(attempts.length, 1);
    attempts.length = 0;
  });

  test('a sync from PostgreSQL to a REST API, and a webhook writing to OData-fed PostgreSQL, run offline', async () => {
    const sync = syncCase({
      sync: 'orders-to-ledger',
      systems: { shop: { Order: [{ id: 1, number: 'O-1', customer: 'ada', total: 5, status: 'open' }] } },
      expect: { statistics: { created: 1 }, systems: { ledger: { Entry: [{ ref: 'O-1', amount: 5 }] } } },
    });
    assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, sync), sync), []);
    const hook = webhookCase({
      webhook: 'wh_contactChanged00001',
      request: { body: { id: 'c1', event: 'created' } },
      systems: { crm: { Contact: [{ ContactId: 'c1', Name: 'Ada', Email: 'ada@example.com', Active: true }] } },
      expect: { status: 200, systems: { shop: { Customer: [{ email: 'ada@example.com', name: 'Ada' }] } } },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, hook), hook), []);
    assert.deepEqual(attempts, []);
  });

  test('the files of a file system are not read: only the fixture rows are', async () => {
    const testCase = syncCase({
      sync: 'payments-to-ledger',
      expect: { statistics: { read: 0 }, systems: { ledger: { Entry: [] } } },
    });
    assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, testCase), testCase), []);
  });

  test('a named query of a sql system runs as written, on SQLite', async () => {
    const testCase = syncCase({
      sync: 'vip-customers-to-ledger',
      systems: {
        shop: {
          Customer: [
            { email: 'a@example.com', name: 'Ada', vip: true },
            { email: 'b@example.com', name: 'Bob', vip: false },
          ],
        },
      },
      expect: { statistics: { read: 1, created: 1 }, systems: { ledger: { Entry: [{ ref: 'a@example.com', customer: 'Ada' }] } } },
    });
    assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, testCase), testCase), []);
  });

  test("a named query in PostgreSQL's dialect is refused by SQLite, and the case says what the database said", async () => {
    const testCase = webhookCase({ webhook: 'wh_customerCountPg0001', request: { method: 'GET' }, expect: { status: 200 } });
    const outcome = await run(runWebhookCase, snapshot, testCase);
    assert.deepEqual(failuresOf(outcome, testCase), [
      "expect.status: the webhook answered 409 (system 'shop': the database refused the statement: the database cannot run it), expected 200",
    ]);
  });

  test('a sql object the sql connector itself cannot read (groups on a composite key) fails the case where it is named', async () => {
    const fixture = syncCase({
      sync: 'orders-to-ledger',
      systems: { shop: { Shipment: [{ order_id: 1, line: 1, parcels: { first: { weight: 2 } } }] } },
      expect: {},
    });
    const loaded = await run(runSyncCase, snapshot, fixture);
    assert.deepEqual(failedPaths(loaded, fixture), ['systems.shop.Shipment.0']);
    assert.match(loaded.failures[0]!.message, /cannot be loaded: Shipment has typed groups but a key of 2 fields/);

    const expected = syncCase({
      sync: 'orders-to-ledger',
      systems: { shop: { Shipment: [{ order_id: 1, line: 1 }] } },
      expect: { systems: { shop: { Shipment: [{ order_id: 1, line: 1 }] } } },
    });
    const read = await run(runSyncCase, snapshot, expected);
    assert.deepEqual(failedPaths(read, expected), ['expect.systems.shop.Shipment']);
    assert.match(read.failures[0]!.message, /the rows of shop\/Shipment cannot be read: Shipment has typed groups but a key of 2 fields/);
  });

  test('a rate-limited webhook answers every case: one case is one call', async () => {
    for (const number of ['O-1', 'O-2', 'O-3']) {
      const testCase = webhookCase({
        webhook: 'wh_signedOrderIntake01',
        request: { body: { number } },
        expect: { status: 200, body: { number } },
      });
      assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, testCase), testCase), [], number);
    }
  });
});
