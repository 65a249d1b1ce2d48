/**
 * A batched match pairs records by the exact values of integers past 2^53: 1234567890123456789,
 * …790 and …791 are one double, and the match once paired every source record of a page with the
 * same target record — a sync matching on such a column updated one row three times and left the
 * other two as they were, saying "updated 3"; a sync matching on the key tried to give one row
 * another's key. Matches the connector makes while writing (create or update on the key) compared
 * exactly already; this one is the run's own (`onNoMatch: skip`), as are dry runs. An ad-hoc start
 * of a free query binds such an id exactly too: it read its neighbour's record, or none.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { planSync } from '../../../../runtime/sync/plan-sync.js';
import type { PlannedRecord } from '../../../../runtime/sync/planned-record.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { absoluteConnection } from '../../../support/databases.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

const refs = ['1234567890123456789', '1234567890123456790', '1234567890123456791'];

await describeEachRuntimeDatabase('batched match on integers past 2^53', (runtime, database) => {
  let connections: ConnectionPool;
  let snapshot: Snapshot;

  before(async () => {
    const admin = database().admin;
    await admin.schema.createTable('flake_sources', (table) => {
      table.integer('id').primary();
      table.bigInteger('ref').notNullable();
      table.string('name', 20);
    });
    await admin.schema.createTable('flake_targets', (table) => {
      table.integer('sk').primary();
      table.bigInteger('ref');
      table.string('name', 20);
    });
    const connection = absoluteConnection(database());
    snapshot = await definitionsSnapshot(
      `kind: System
id: flakes
connector: sql
connection: ${JSON.stringify(connection)}
objects:
  Source:
    table: flake_sources
    key: [id]
    fields:
      id: { type: Integer }
      ref: { type: Integer }
      name: { type: String }
  Target:
    table: flake_targets
    key: [sk]
    fields:
      sk: { type: Integer }
      ref: { type: Integer }
      name: { type: String }
queries:
  flakes:
    statement: "SELECT ref, name, id FROM flake_sources WHERE #FlowFilter#"
    columns:
      - { name: ref, type: Integer }
      - { name: name, type: String }
      - { name: id, type: Integer }
---
kind: Sync
id: mark-one-flake
source: { system: flakes, query: flakes }
target: { system: flakes, object: Target }
mapping: '{ "sk": id, "name": name & "!" }'
match: { where: "sk = #sk#", onNoMatch: skip }
---
kind: Sync
id: rename-flakes
source: { system: flakes, object: Source, order: id asc }
target: { system: flakes, object: Target }
mapping: '{ "ref": ref, "name": name }'
match: { where: "ref = #ref#", onNoMatch: skip, onMatch: update }
batchSize: 3
`,
    );
    connections = new ConnectionPool({ baseDirectory: database().baseDirectory });
    await admin('flake_sources').insert(refs.map((ref, index) => ({ id: index + 1, ref, name: `new-${ref.slice(-3)}` })));
    await admin('flake_targets').insert(refs.map((ref, index) => ({ sk: index + 1, ref, name: `old-${ref.slice(-3)}` })));
  });

  after(async () => {
    await connections?.closeAll();
  });

  test('a dry run plans one update per record, each of its own target record', async () => {
    const planned: PlannedRecord[] = [];
    const environment = { snapshot, connections, db: runtime() };
    const outcome = await planSync(environment, { processId: 'rename-flakes' }, snapshot.syncs.get('rename-flakes')!, (record) =>
      planned.push(record),
    );
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual(
      planned.map((record) => [record.action, record.targets?.map((target) => target.key.sk)]),
      [
        ['update', [1]],
        ['update', [2]],
        ['update', [3]],
      ],
    );
  });

  test('each source record updates the target record holding its own value', async () => {
    const outcome = await runProcess({ snapshot, connections, db: runtime() }, { processId: 'rename-flakes' });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual(outcome.statistics, { read: 3, created: 0, updated: 3, skipped: 0, failed: 0 });
    const admin = database().admin;
    const rows = (await admin('flake_targets').select(admin.raw('CAST(ref AS CHAR(30)) AS ref'), 'name').orderBy('sk')) as Array<{
      ref: string;
      name: string;
    }>;
    assert.deepEqual(
      rows.map((row) => `${row.ref.trim()} ${row.name}`),
      refs.map((ref) => `${ref} new-${ref.slice(-3)}`),
    );
  });

  test('an ad-hoc start of a query source finds the one record whose first column is that id', async () => {
    const outcome = await runProcess({ snapshot, connections, db: runtime() }, { processId: 'mark-one-flake', sourceId: refs[1] });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual(outcome.statistics, { read: 1, created: 0, updated: 1, skipped: 0, failed: 0 });
    const names = await database().admin('flake_targets').pluck('name').orderBy('sk');
    assert.deepEqual(names, ['new-789', 'new-790!', 'new-791']);
  });
});
