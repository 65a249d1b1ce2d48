/**
 * A mapping that never ends for some records — a recursive function without a base case — fails
 * those records with JSONata's own message, and the run goes on to write the others and ends
 * Complete. Before, a recursion that was no tail call grew the heap until the process died
 * (leaving its item InProgress), and one that was ran forever, deaf to timeouts and signals.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { absoluteConnection } from '../../../support/databases.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

function definitions(connection: Record<string, unknown>): string {
  return `kind: System
id: nums
connector: sql
connection: ${JSON.stringify(connection)}
objects:
  Source:
    table: runaway_source
    key: [id]
    fields:
      id: { type: Integer, required: true }
  Target:
    table: runaway_target
    key: [id]
    fields:
      id: { type: Integer, required: true }
      n: { type: Integer }
---
kind: Sync
id: runaway
source: { system: nums, object: Source }
target: { system: nums, object: Target }
mapping: '($f := function($x){ 1 + $f($x) }; { "id": id, "n": id = 2 ? $f(1) : id * 10 })'
match: { where: "id = #id#", onNoMatch: create, onMatch: update }
`;
}

await describeEachRuntimeDatabase('a mapping that never ends for one record', (runtime, database) => {
  let connections: ConnectionPool;
  let snapshot: Snapshot;
  const admin = () => database().admin;

  before(async () => {
    await admin().schema.createTable('runaway_source', (table) => table.integer('id').primary());
    await admin().schema.createTable('runaway_target', (table) => {
      table.integer('id').primary();
      table.integer('n');
    });
    await admin()('runaway_source').insert([{ id: 1 }, { id: 2 }, { id: 3 }]);
    const connection = absoluteConnection(database());
    snapshot = await definitionsSnapshot(definitions(connection));
    connections = new ConnectionPool({ baseDirectory: database().baseDirectory });
  });
  after(async () => {
    await connections?.closeAll();
  });

  test('fails that record with a stack overflow and writes the others', async () => {
    const outcome = await runProcess({ snapshot, connections, db: runtime() }, { processId: 'runaway' });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual(outcome.statistics, { read: 3, created: 2, updated: 0, skipped: 0, failed: 1 });
    assert.equal(outcome.errors[0]!.sourceId, '2');
    assert.match(outcome.errors[0]!.message, /Stack overflow\. Check for non-terminating recursive function/);
    const rows = (await admin()('runaway_target').select('id', 'n').orderBy('id')) as Array<{ id: number; n: number }>;
    assert.deepEqual(
      rows.map((row) => [Number(row.id), Number(row.n)]),
      [
        [1, 10],
        [3, 30],
      ],
    );
  });
});
