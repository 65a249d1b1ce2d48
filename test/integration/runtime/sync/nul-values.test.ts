/**
 * A NUL character (U+0000) in one source record — as a webhook stores it in the record store —
 * is that record's problem only. PostgreSQL refuses NUL in text, in a search as in a write: the
 * record fails, said with its source id and the reason, and every other record of the page is
 * matched and written as usual; the run is Complete. SQLite and MariaDB store NUL like any other
 * character: there the record is synced, and found again (not doubled) by the next run.
 *
 * Each match plan is covered: a batched match on the key (creates upsert through the primary
 * key), a batched match on a field no unique index covers (match locks), a searched match (an
 * expression, record by record) and no match at all (every record created).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import type { RunOutcome } from '../../../../runtime/execution/process-run.js';
import { readRecords } from '../../../../runtime/record-store/read-records.js';
import { storeRecords } from '../../../../runtime/record-store/store-record.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { absoluteConnection } from '../../../support/databases.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

const nulCode = 'K-\u00003';
/** Five records; the third one's match value holds NUL. */
const records = [
  { code: 'K-1', label: 'one' },
  { code: 'K-2', label: 'two' },
  { code: nulCode, label: 'three' },
  { code: 'K-4', label: 'four' },
  { code: 'K-5', label: 'five' },
];
/** PostgreSQL's refusal, as the connector says it: the codec before a write, the database's error in a search. */
const refusedNul =
  /PostgreSQL text cannot hold the NUL character \(U\+0000\)|the NUL character \(U\+0000\), which PostgreSQL cannot store or compare/;

function definitions(connection: Record<string, unknown>): string {
  const sync = (id: string, object: string, match: string) =>
    `kind: Sync\nid: ${id}\nsource: { recordStore: true }\ntarget: { system: nul, object: ${object} }\nmapping: '{ "code": code, "label": label }'\n${match}\n`;
  return [
    `kind: System
id: nul
connector: sql
connection: ${JSON.stringify(connection)}
objects:
  Thing:
    table: nul_things
    key: [code]
    fields:
      code: { type: String, required: true }
      label: { type: String }
  Note:
    table: nul_notes
    key: [id]
    fields:
      id: { type: Integer, readOnly: true }
      code: { type: String }
      label: { type: String }
`,
    sync('things-by-key', 'Thing', 'match: { where: "code = #code#", onNoMatch: create, onMatch: update }'),
    sync('notes-by-code', 'Note', 'match: { where: "code = #code#", onNoMatch: create, onMatch: update }'),
    sync('things-searched', 'Thing', 'match: { where: "tolower(code) = tolower(#code#)", onNoMatch: create, onMatch: update }'),
    sync('notes-created', 'Note', ''),
  ].join('---\n');
}

await describeEachRuntimeDatabase('a NUL character in one source record', (runtime, database) => {
  let connections: ConnectionPool;
  let snapshot: Snapshot;
  const admin = () => database().admin;
  const postgres = () => database().engine === 'postgres';
  const run = (processId: string, sourceId?: string) =>
    runProcess({ snapshot, connections, db: runtime() }, { processId, ...(sourceId === undefined ? {} : { sourceId }) });
  const rows = async (table: string) =>
    (await admin()(table).select('code', 'label').orderBy('label')) as Array<{ code: string; label: string }>;
  const stored = async (syncId: string) => (await readRecords(runtime(), { syncId, limit: 100 })).records.map((entry) => entry.guid);
  /** The outcome of a run in which the NUL record, source id `guid`, failed alone on PostgreSQL. */
  const assertFailedAlone = (outcome: RunOutcome, guid: string, statistics: RunOutcome['statistics'], reason: RegExp) => {
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual(outcome.statistics, statistics);
    assert.equal(outcome.errors.length, 1, JSON.stringify(outcome.errors));
    assert.equal(outcome.errors[0]!.sourceId, guid);
    assert.match(outcome.errors[0]!.message, reason);
  };

  before(async () => {
    await admin().schema.createTable('nul_things', (table) => {
      table.string('code', 20).primary();
      table.string('label', 20);
    });
    await admin().schema.createTable('nul_notes', (table) => {
      table.increments('id').primary();
      table.string('code', 20);
      table.string('label', 20);
    });
    const connection = absoluteConnection(database());
    snapshot = await definitionsSnapshot(definitions(connection));
    connections = new ConnectionPool({ baseDirectory: database().baseDirectory });
  });
  after(async () => {
    await connections?.closeAll();
  });
  beforeEach(async () => {
    await admin()('nul_things').delete();
    await admin()('nul_notes').delete();
    await runtime().knex('record_store').delete();
  });

  test('batched match on the key: the other four records are created or updated; a second run doubles nothing', async () => {
    await admin()('nul_things').insert({ code: 'K-1', label: 'old' });
    const guids = await storeRecords(runtime(), 'things-by-key', records);
    const first = await run('things-by-key');
    if (postgres()) {
      assertFailedAlone(first, guids[2]!, { read: 5, created: 3, updated: 1, skipped: 0, failed: 1 }, /^match search: .*NUL character/);
      assert.match(first.errors[0]!.message, refusedNul);
      assert.deepEqual(await stored('things-by-key'), [guids[2]], 'the failed record stays in the record store for another try');
    } else {
      assert.equal(first.status, 'Complete', JSON.stringify(first.errors));
      assert.deepEqual(first.statistics, { read: 5, created: 4, updated: 1, skipped: 0, failed: 0 });
      assert.deepEqual(await stored('things-by-key'), []);
    }
    const expected = [
      { code: 'K-5', label: 'five' },
      { code: 'K-4', label: 'four' },
      { code: 'K-1', label: 'one' },
      ...(postgres() ? [] : [{ code: nulCode, label: 'three' }]),
      { code: 'K-2', label: 'two' },
    ];
    assert.deepEqual(await rows('nul_things'), expected);

    await runtime().knex('record_store').delete();
    const again = await storeRecords(runtime(), 'things-by-key', records);
    const second = await run('things-by-key');
    // The target already holds what the first run wrote: found unchanged, not written again.
    if (postgres())
      assertFailedAlone(second, again[2]!, { read: 5, created: 0, updated: 0, skipped: 4, failed: 1, unchanged: 4 }, refusedNul);
    else
      assert.deepEqual(
        [second.status, second.statistics],
        ['Complete', { read: 5, created: 0, updated: 0, skipped: 5, failed: 0, unchanged: 5 }],
      );
    assert.deepEqual(await rows('nul_things'), expected);
  });

  test('batched match on a field without a unique index: each record lands exactly once, over two runs', async () => {
    const guids = await storeRecords(runtime(), 'notes-by-code', records);
    const first = await run('notes-by-code');
    if (postgres()) assertFailedAlone(first, guids[2]!, { read: 5, created: 4, updated: 0, skipped: 0, failed: 1 }, refusedNul);
    else assert.deepEqual([first.status, first.statistics], ['Complete', { read: 5, created: 5, updated: 0, skipped: 0, failed: 0 }]);
    await runtime().knex('record_store').delete();
    await storeRecords(runtime(), 'notes-by-code', records);
    const second = await run('notes-by-code');
    assert.equal(second.status, 'Complete', JSON.stringify(second.errors));
    assert.deepEqual(
      second.statistics,
      postgres()
        ? { read: 5, created: 0, updated: 0, skipped: 4, failed: 1, unchanged: 4 }
        : { read: 5, created: 0, updated: 0, skipped: 5, failed: 0, unchanged: 5 },
    );
    const codes = (await rows('nul_notes')).map((row) => row.code).sort();
    assert.deepEqual(codes, postgres() ? ['K-1', 'K-2', 'K-4', 'K-5'] : ['K-1', 'K-2', 'K-4', 'K-5', nulCode].sort());
  });

  test('an ad-hoc start of the NUL record alone (a webhook storing it) completes with that record failed on PostgreSQL', async () => {
    const [guid] = await storeRecords(runtime(), 'things-by-key', [records[2]!]);
    const outcome = await run('things-by-key', guid);
    if (postgres()) assertFailedAlone(outcome, guid!, { read: 1, created: 0, updated: 0, skipped: 0, failed: 1 }, refusedNul);
    else assert.deepEqual([outcome.status, outcome.statistics], ['Complete', { read: 1, created: 1, updated: 0, skipped: 0, failed: 0 }]);
  });

  test('searched match (record by record): only the NUL record fails', async () => {
    await admin()('nul_things').insert({ code: 'K-1', label: 'old' });
    const guids = await storeRecords(runtime(), 'things-searched', records);
    const outcome = await run('things-searched');
    if (postgres())
      assertFailedAlone(outcome, guids[2]!, { read: 5, created: 3, updated: 1, skipped: 0, failed: 1 }, /^match search: .*NUL character/);
    else assert.deepEqual([outcome.status, outcome.statistics], ['Complete', { read: 5, created: 4, updated: 1, skipped: 0, failed: 0 }]);
    assert.equal((await rows('nul_things')).length, postgres() ? 4 : 5);
  });

  test('the write refuses NUL: a create and an update holding it fail alone, the rest of the page is written', async () => {
    await admin()('nul_things').insert({ code: 'K-1', label: 'old' });
    const withNulLabels = records.map((record, index) =>
      index === 0 ? { code: 'K-1', label: 'o\u0000ne' } : index === 2 ? { code: 'K-3', label: 'th\u0000ree' } : record,
    );
    const guids = await storeRecords(runtime(), 'things-by-key', withNulLabels);
    const outcome = await run('things-by-key');
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    if (postgres()) {
      assert.deepEqual(outcome.statistics, { read: 5, created: 3, updated: 0, skipped: 0, failed: 2 });
      // The store is read in GUID order, which is random: compare the sets.
      assert.deepEqual(outcome.errors.map((error) => error.sourceId).sort(), [guids[0], guids[2]].sort());
      for (const error of outcome.errors) assert.match(error.message, refusedNul);
      assert.deepEqual(await rows('nul_things'), [
        { code: 'K-5', label: 'five' },
        { code: 'K-4', label: 'four' },
        { code: 'K-1', label: 'old' },
        { code: 'K-2', label: 'two' },
      ]);
    } else {
      assert.deepEqual(outcome.statistics, { read: 5, created: 4, updated: 1, skipped: 0, failed: 0 });
      assert.deepEqual((await rows('nul_things')).map((row) => row.label).sort(), ['five', 'four', 'o\u0000ne', 'th\u0000ree', 'two']);
    }

    const created = await storeRecords(runtime(), 'notes-created', records);
    const plain = await run('notes-created');
    if (postgres()) assertFailedAlone(plain, created[2]!, { read: 5, created: 4, updated: 0, skipped: 0, failed: 1 }, refusedNul);
    else assert.deepEqual([plain.status, plain.statistics], ['Complete', { read: 5, created: 5, updated: 0, skipped: 0, failed: 0 }]);
    assert.equal((await rows('nul_notes')).length, postgres() ? 4 : 5);
  });
});
