/**
 * `syncline discover` against real databases: a System's tables come out as object definitions
 * with their keys and typed fields, ready to paste — pasted under the System, they validate and
 * describe the same tables — and unknown systems and tables are answered with what there is.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../../../support/cli-process.js';
import { describeEachDatabase, type TestDatabase } from '../../../support/databases.js';

/** A System `shop` on the test database, with `objects` as given (YAML text under `objects:`). */
function systemYaml(
  database: TestDatabase,
  objects = '  Placeholder: { table: discover_orders, key: [id], fields: { id: { type: Integer } } }\n',
): string {
  const connection =
    database.engine === 'sqlite' ? { client: 'sqlite3', filename: join(database.baseDirectory, 'test.sqlite') } : database.connection;
  return `kind: System\nid: shop\nconnector: sql\nconnection: ${JSON.stringify(connection)}\nobjects:\n${objects}`;
}

await describeEachDatabase('syncline discover', (database) => {
  describe('a database with three tables', () => {
    let definitions: string;
    const discover = (...args: string[]) => runCli(['discover', ...args, '--definitions', definitions]);

    before(async () => {
      const admin = database().admin;
      await admin.schema.createTable('discover_orders', (table) => {
        table.integer('id').primary();
        table.string('customer', 100).notNullable();
        table.decimal('total', 10, 2);
        table.timestamp('placed_at');
        table.boolean('paid');
      });
      await admin.schema.createTable('discover_lines', (table) => {
        table.integer('order_id').notNullable();
        table.integer('line_no').notNullable();
        table.string('sku', 40);
        table.primary(['order_id', 'line_no']);
      });
      await admin.schema.createTable('discover_log', (table) => {
        table.string('message', 200);
      });
      await admin('discover_orders').insert({ id: 7, customer: 'Ada', total: 12.5, paid: true });
      definitions = join(database().baseDirectory, `discover-defs-${database().engine}`);
      mkdirSync(definitions, { recursive: true });
      writeFileSync(join(definitions, 'systems.yaml'), systemYaml(database()));
    });

    it('prints every table as an object with its key and typed fields, and says which have no key', async () => {
      const run = await discover('shop');
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^# Objects of system 'shop' as the system describes them; paste under the System's objects:\.\n/);
      assert.match(run.stdout, /^# No key: discover_log; add key: \[field, …\] before reading by id or writing\.$/m);
      const { objects } = parse(run.stdout) as {
        objects: Record<string, { table: string; key?: string[]; fields: Record<string, { type: string }> }>;
      };
      assert.deepEqual(objects.discover_orders, {
        table: 'discover_orders',
        key: ['id'],
        fields: {
          id: { type: 'Integer' },
          customer: { type: 'String' },
          total: { type: 'Number' },
          placed_at: { type: 'DateTime' },
          paid: { type: 'Boolean' },
        },
      });
      assert.deepEqual(objects.discover_lines, {
        table: 'discover_lines',
        key: ['order_id', 'line_no'],
        fields: { order_id: { type: 'Integer' }, line_no: { type: 'Integer' }, sku: { type: 'String' } },
      });
      assert.deepEqual(objects.discover_log, { table: 'discover_log', fields: { message: { type: 'String' } } });
    });

    it('prints one table with --object, in any case; pasted under the System it validates and describes the same table', async () => {
      const run = await discover('shop', '--object', 'DISCOVER_ORDERS');
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(Object.keys((parse(run.stdout) as { objects: object }).objects), ['discover_orders']);
      const pasted = join(database().baseDirectory, `discover-pasted-${database().engine}`);
      mkdirSync(pasted, { recursive: true });
      const objects = run.stdout.slice(run.stdout.indexOf('objects:\n') + 'objects:\n'.length);
      writeFileSync(join(pasted, 'systems.yaml'), systemYaml(database(), objects));
      const validate = await runCli(['validate', pasted]);
      assert.equal(validate.code, 0, validate.stdout + validate.stderr);
      const again = await runCli(['discover', 'shop', '--definitions', pasted, '--object', 'discover_orders']);
      assert.equal(again.stdout, run.stdout, 'the pasted definition describes the same table');
    });

    it('answers an unknown system or table with exit 2 and what there is', async () => {
      const system = await discover('shopp');
      assert.equal(system.code, 2);
      assert.match(system.stderr, /there is no system 'shopp' in .*; known: shop/);
      const table = await discover('shop', '--object', 'discover_order');
      assert.equal(table.code, 2);
      assert.match(table.stderr, /system 'shop' has no object 'discover_order'; it has: .*discover_lines.*discover_orders/);
      assert.equal(table.stdout, '');
    });
  });
});
