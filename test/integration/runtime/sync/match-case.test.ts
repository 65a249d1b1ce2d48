/**
 * A batched match pairs records by exact key values: two source records whose keys differ only in
 * case ('ABC', 'abc') each reach their own target record on engines that tell them apart. On
 * MariaDB, whose default collation does not, the connector still compares exactly (as everywhere),
 * so the second cannot be created beside the first and fails on its own, said — it never takes
 * over the other's row.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { absoluteConnection } from '../../../support/databases.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

await describeEachRuntimeDatabase('batched match by exact key', (runtime, database) => {
  let connections: ConnectionPool;

  before(async () => {
    const admin = database().admin;
    await admin.schema.createTable('case_items', (table) => {
      table.integer('id').primary();
      table.string('code', 20).notNullable();
      table.string('label', 20);
    });
    await admin.schema.createTable('case_things', (table) => {
      table.string('code', 20).primary();
      table.string('label', 20);
    });
    const connection = absoluteConnection(database());
    const snapshot = await definitionsSnapshot(
      `kind: System
id: cases
connector: sql
connection: ${JSON.stringify(connection)}
objects:
  Item:
    table: case_items
    key: [id]
    fields:
      id: { type: Integer }
      code: { type: String }
      label: { type: String }
  Thing:
    table: case_things
    key: [code]
    fields:
      code: { type: String, required: true }
      label: { type: String }
---
kind: Sync
id: items-to-things
source: { system: cases, object: Item, order: id asc }
target: { system: cases, object: Thing }
mapping: '{ "code": code, "label": label }'
match: { where: "code = #code#", onNoMatch: create, onMatch: update }
`,
    );
    connections = new ConnectionPool({ baseDirectory: database().baseDirectory });
    await admin('case_items').insert([
      { id: 1, code: 'ABC', label: 'upper' },
      { id: 2, code: 'abc', label: 'lower' },
    ]);
    await admin('case_things').insert({ code: 'ABC', label: 'old' });
    const outcome = await runProcess({ snapshot, connections, db: runtime() }, { processId: 'items-to-things' });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    statistics = outcome.statistics;
    errors = outcome.errors;
  });
  let statistics: { read: number; created: number; updated: number; skipped: number; failed: number };
  let errors: Array<{ message: string; sourceId?: string }>;

  after(async () => {
    await connections?.closeAll();
  });

  test('each source record reaches the target record its key equals, as the database compares', async () => {
    const rows = (await database().admin('case_things').select('code', 'label').orderBy('label')) as Array<{ code: string; label: string }>;
    if (database().engine === 'mariadb') {
      assert.deepEqual(statistics, { read: 2, created: 0, updated: 1, skipped: 0, failed: 1 });
      assert.deepEqual(rows, [{ code: 'ABC', label: 'upper' }]);
      assert.equal(errors[0]?.sourceId, '2', JSON.stringify(errors));
    } else {
      assert.deepEqual(statistics, { read: 2, created: 1, updated: 1, skipped: 0, failed: 0 });
      assert.deepEqual(rows, [
        { code: 'abc', label: 'lower' },
        { code: 'ABC', label: 'upper' },
      ]);
    }
  });
});
