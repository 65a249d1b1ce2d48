/**
 * Syncs writing one target table at the same time, as real `syncline run` processes on each
 * database (SQLite, PostgreSQL, MariaDB): two sources whose records overlap by half, each read by
 * two syncs (the same sync twice, as overlapping runs of one sync are, and another sync writing the
 * same records), all four started at once. Whatever the interleaving, the target holds each match
 * key once, the runs create exactly one record per key between them and fail none:
 * - a target without a unique index, matched on a plain column (match locks; on SQLite its writer
 *   lock, as in every case);
 * - a target with a unique index on the match column (the index arbitrates the creates).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, it } from 'node:test';
import type { RuntimeDatabase } from '../../runtime/database/open-database.js';
import type { ItemStatistics } from '../../runtime/queue/queue-item.js';
import { getItem } from '../../runtime/queue/get-item.js';
import { runCli } from '../support/cli-process.js';
import { describeEachDatabase } from '../support/databases.js';
import { openRuntime, runtimeUrl, writeDefinitions } from './fault-setup.js';

/** Records per source; the second source starts half-way through the first. */
const perSource = Number(process.env.SYNCLINE_FAULT_OVERLAP_RECORDS ?? 2000);
const distinctKeys = perSource + perSource / 2;
const extId = (n: number): string => `P-${String(n).padStart(6, '0')}`;

const objects = `  PersonA:
    table: people_a
    key: [id]
    fields: { id: { type: Integer }, ext_id: { type: String }, name: { type: String } }
  PersonB:
    table: people_b
    key: [id]
    fields: { id: { type: Integer }, ext_id: { type: String }, name: { type: String } }
  # No unique index in the database: the declared key is the match column, so creates go in
  # multi-row INSERTs.
  PlainContact:
    table: contacts_plain
    key: [ext_id]
    fields: { ext_id: { type: String, required: true }, name: { type: String }, origin: { type: String } }
  # A generated key and a unique index on the match column: each create is an INSERT of its own.
  UniqueContact:
    table: contacts_unique
    key: [seq]
    fields: { seq: { type: Integer, readOnly: true }, ext_id: { type: String, required: true }, name: { type: String }, origin: { type: String } }`;

/** Four syncs into `target`: twice from each source, the B ones reading backwards to meet the A ones. */
function syncsInto(target: string): string {
  const sync = (id: string, source: string, order: string) => `kind: Sync
id: ${id}
source: { system: work, object: ${source}, order: ${order} }
target: { system: work, object: ${target} }
mapping: '{ "ext_id": ext_id, "name": name, "origin": "${id}" }'
match: { where: "ext_id = #ext_id#", onNoMatch: create, onMatch: update }
batchSize: 100`;
  const name = target.toLowerCase();
  return [
    sync(`${name}-a1`, 'PersonA', 'id asc'),
    sync(`${name}-a2`, 'PersonA', 'id asc'),
    sync(`${name}-b1`, 'PersonB', 'id desc'),
    sync(`${name}-b2`, 'PersonB', 'id desc'),
  ].join('\n---\n');
}

await describeEachDatabase('overlapping syncs into one target', (database) => {
  let runtime: RuntimeDatabase;
  const directories: string[] = [];

  before(async () => {
    const admin = database().admin;
    for (const table of ['people_a', 'people_b']) {
      await admin.schema.createTable(table, (t) => {
        t.integer('id').primary();
        t.string('ext_id', 40).notNullable();
        t.string('name', 100);
      });
    }
    await admin.schema.createTable('contacts_plain', (t) => {
      t.string('ext_id', 40).notNullable().index();
      t.string('name', 100);
      t.string('origin', 40);
    });
    await admin.schema.createTable('contacts_unique', (t) => {
      t.increments('seq');
      t.string('ext_id', 40).notNullable().unique();
      t.string('name', 100);
      t.string('origin', 40);
    });
    for (let start = 1; start <= perSource; start += 500) {
      const ids = Array.from({ length: Math.min(500, perSource - start + 1) }, (_, offset) => start + offset);
      await admin('people_a').insert(ids.map((id) => ({ id, ext_id: extId(id), name: `A ${id}` })));
      await admin('people_b').insert(ids.map((id) => ({ id, ext_id: extId(id + perSource / 2), name: `B ${id}` })));
    }
    // Migrated once here: the processes then find the runtime database ready.
    runtime = await openRuntime(database());
  });

  after(async () => {
    await runtime?.close();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  });

  /** Starts the four syncs into `target` at once and waits for all; answers each run's statistics. */
  async function runTogether(target: string): Promise<Map<string, ItemStatistics>> {
    const definitions = writeDefinitions(database(), objects, syncsInto(target));
    directories.push(definitions);
    const ids = ['a1', 'a2', 'b1', 'b2'].map((suffix) => `${target.toLowerCase()}-${suffix}`);
    const runs = await Promise.all(ids.map((id) => runCli(['run', id, '--definitions', definitions, '--db', runtimeUrl(database())])));
    for (const [index, run] of runs.entries())
      assert.equal(run.code, 0, `syncline run ${ids[index]} exited ${run.code}: ${run.stdout.slice(-800)} ${run.stderr.slice(-800)}`);
    const statistics = new Map<string, ItemStatistics>();
    for (const id of ids) {
      const row = (await runtime.knex('queue_items').where({ process_id: id }).first('id')) as { id: string };
      const item = await getItem(runtime, row.id);
      assert.equal(item?.status, 'Complete', `the run of ${id} is Complete`);
      statistics.set(id, item!.statistics!);
    }
    return statistics;
  }

  async function assertOnePerKey(table: string, statistics: Map<string, ItemStatistics>): Promise<void> {
    const admin = database().admin;
    const [totals] = (await admin(table).count({ rows: '*' }).countDistinct({ keys: 'ext_id' })) as Array<{
      rows: number | string;
      keys: number | string;
    }>;
    assert.equal(Number(totals!.keys), distinctKeys, 'every source key reached the target');
    assert.equal(Number(totals!.rows), distinctKeys, `one row per key: ${totals!.rows} rows for ${distinctKeys} keys`);
    let created = 0;
    for (const [id, run] of statistics) {
      assert.equal(run.read, perSource, `${id} read its source`);
      assert.equal(run.failed, 0, `${id} failed no record: ${JSON.stringify(run)}`);
      assert.equal(
        run.created + run.updated + (run.unchanged ?? 0),
        run.read,
        `${id}: every record created, updated or found unchanged: ${JSON.stringify(run)}`,
      );
      created += run.created;
    }
    assert.equal(created, distinctKeys, `the runs created one record per key between them: ${JSON.stringify([...statistics])}`);
    const wrong = (await admin(table)
      .whereNotIn('name', admin('people_a').select('name').unionAll(admin('people_b').select('name')))
      .count({ n: '*' })) as Array<{ n: number | string }>;
    assert.equal(Number(wrong[0]!.n), 0, 'every row holds a source record');
  }

  it(`four runs at once into a table without a unique index: ${distinctKeys} rows for ${distinctKeys} keys`, {
    timeout: 240_000,
  }, async () => {
    await assertOnePerKey('contacts_plain', await runTogether('PlainContact'));
  });

  it(`four runs at once into a table with a unique index on the match column: no failures, one create per key`, {
    timeout: 240_000,
  }, async () => {
    await assertOnePerKey('contacts_unique', await runTogether('UniqueContact'));
  });
});
