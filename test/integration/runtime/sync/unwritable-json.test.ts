/**
 * A source record whose Json value JSON text cannot carry — nested thousands of levels deep — is
 * that record's problem only: it fails with its source id and the reason, every other record is
 * written, and the run is Complete. Before, the deep value threw a RangeError in the write's
 * encoding, which failed the whole batch as a database error and was retried. A number past a
 * double's range in the stored JSON (1e400, which JSON.parse makes Infinity and JSON.stringify
 * null) arrives as its text, as a wide integer does, and is written so: nothing is lost.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { absoluteConnection } from '../../../support/databases.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

const levels = 8000;
const deepObject = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const deepArray = `${'['.repeat(levels)}1${']'.repeat(levels)}`;

function definitions(connection: Record<string, unknown>): string {
  const object = (table: string) => `
  ${table === 'json_source' ? 'Source' : 'Target'}:
    table: ${table}
    key: [id]
    fields:
      id: { type: Integer, required: true }
      payload: { type: Json }`;
  return `kind: System
id: docs
connector: sql
connection: ${JSON.stringify(connection)}
objects:${object('json_source')}${object('json_target')}
---
kind: Sync
id: copy-docs
source: { system: docs, object: Source }
target: { system: docs, object: Target }
mapping: '{ "id": id, "payload": payload }'
match: { where: "id = #id#", onNoMatch: create, onMatch: update }
`;
}

await describeEachRuntimeDatabase('a Json value JSON text cannot carry, in one source record', (runtime, database) => {
  let connections: ConnectionPool;
  let snapshot: Snapshot;
  const admin = () => database().admin;

  before(async () => {
    for (const table of ['json_source', 'json_target']) {
      await admin().schema.createTable(table, (columns) => {
        columns.integer('id').primary();
        columns.text('payload', 'mediumtext');
      });
    }
    const connection = absoluteConnection(database());
    snapshot = await definitionsSnapshot(definitions(connection));
    connections = new ConnectionPool({ baseDirectory: database().baseDirectory });
  });
  after(async () => {
    await connections?.closeAll();
  });
  beforeEach(async () => {
    await admin()('json_source').delete();
    await admin()('json_target').delete();
  });

  test('fails alone, named with its source id and where the value goes wrong; the rest of the page is written', async () => {
    await admin()('json_source').insert([
      { id: 1, payload: '{"v":1}' },
      { id: 2, payload: deepObject },
      { id: 3, payload: '{"v":[2,1e400]}' },
      { id: 4, payload: deepArray },
      { id: 5, payload: '[5]' },
    ]);
    const outcome = await runProcess({ snapshot, connections, db: runtime() }, { processId: 'copy-docs' });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors).slice(0, 2000));
    assert.deepEqual(outcome.statistics, { read: 5, created: 3, updated: 0, skipped: 0, failed: 2 });
    const errors = [...outcome.errors].sort((a, b) => String(a.sourceId).localeCompare(String(b.sourceId)));
    assert.deepEqual(
      errors.map((error) => error.sourceId),
      ['2', '4'],
    );
    assert.match(
      errors[0]!.message,
      /Target\.payload: expected JSON data, but the value at a\.a\.a\.a….a\.a is nested more than 1000 levels deep/,
    );
    assert.match(errors[1]!.message, /nested more than 1000 levels deep/);
    for (const error of errors) assert.ok(error.message.length < 500, error.message);
    const written = (await admin()('json_target').select('id', 'payload').orderBy('id')) as Array<{ id: number; payload: string }>;
    assert.deepEqual(
      written.map((row) => [Number(row.id), JSON.parse(row.payload)]),
      [
        [1, { v: 1 }],
        [3, { v: [2, '1e400'] }],
        [5, [5]],
      ],
    );
  });
});
