/**
 * The queue's promises under real faults, with real `syncline daemon` processes on each runtime
 * database (SQLite, PostgreSQL, MariaDB):
 * - three daemons draining 5,000 items execute every item exactly once (each execution inserts a
 *   row into a side table without any match, so a second execution would show as a duplicate);
 * - a daemon killed with SIGKILL in the middle of a 10,000-record sync: another daemon takes the
 *   item back after the lease and finishes it, and the target holds every record exactly once;
 * - two daemons with the same schedule enqueue one item per slot.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { enqueue } from '../../runtime/queue/enqueue.js';
import { getItem } from '../../runtime/queue/get-item.js';
import { countByStatus } from '../../runtime/queue/queue-summary.js';
import type { RuntimeDatabase } from '../../runtime/database/open-database.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { describeEachDatabase } from '../support/databases.js';
import { openRuntime, runtimeUrl, waitUntil, writeDefinitions } from './fault-setup.js';

const itemCount = Number(process.env.SYNCLINE_FAULT_ITEMS ?? 5000);
const killedSyncRecords = 10_000;

const objects = `  Job:
    table: jobs
    key: [id]
    fields:
      id: { type: Integer }
  Execution:
    table: executions
    key: [seq]
    fields:
      seq: { type: Integer, readOnly: true }
      job_id: { type: Integer, required: true }
  Person:
    table: people
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
  Copy:
    table: copies
    key: [id]
    fields:
      id: { type: Integer, required: true }
      name: { type: String }
  Tick:
    table: ticks
    key: [id]
    fields:
      id: { type: Integer }`;

const syncs = `kind: Sync
id: record-execution
source: { system: work, object: Job }
target: { system: work, object: Execution }
mapping: '{ "job_id": id }'
retries: { max: 2, backoff: 1s }
---
kind: Sync
id: copy-people
source: { system: work, object: Person, order: id asc }
target: { system: work, object: Copy }
mapping: '{ "id": id, "name": name }'
match: { where: "id = #id#", onNoMatch: create, onMatch: update }
batchSize: 100
retries: { max: 2, backoff: 1s }`;

/** Only the schedule test's daemons see the schedule: it would add items to the other tests' queue. */
const scheduledSync = `kind: Sync
id: every-two-seconds
source: { system: work, object: Tick }
target: { system: work, object: Execution }
mapping: '{ "job_id": id }'
schedule: { every: 2s }`;

function daemon(definitions: string, url: string, env: Record<string, string> = {}): CliProcess {
  return startCli(['daemon', '--definitions', definitions, '--db', url, '--concurrency', '4'], {
    env: { SYNCLINE_POLL_INTERVAL: '200ms', ...env },
  });
}

/** Waits until every daemon exits after SIGTERM, and checks they exited cleanly. */
async function stopAll(daemons: readonly CliProcess[]): Promise<void> {
  const exits = await Promise.all(daemons.map((d) => d.stop('SIGTERM')));
  for (const [index, exit] of exits.entries())
    assert.equal(exit.code, 0, `daemon ${index + 1} exited ${exit.code ?? exit.signal}: ${daemons[index]!.stderr().slice(-1000)}`);
}

await describeEachDatabase('daemon processes', (database) => {
  let runtime: RuntimeDatabase;
  let definitions: string;
  let scheduleDefinitions: string;
  const running: CliProcess[] = [];

  before(async () => {
    const admin = database().admin;
    await admin.schema.createTable('jobs', (table) => table.integer('id').primary());
    await admin.schema.createTable('executions', (table) => {
      table.increments('seq');
      table.integer('job_id').notNullable();
    });
    await admin.schema.createTable('people', (table) => {
      table.integer('id').primary();
      table.string('name');
    });
    await admin.schema.createTable('copies', (table) => {
      table.integer('id').primary();
      table.string('name');
    });
    await admin.schema.createTable('ticks', (table) => table.integer('id').primary());
    for (let start = 1; start <= itemCount; start += 500) {
      await admin('jobs').insert(Array.from({ length: 500 }, (_, offset) => ({ id: start + offset })));
    }
    for (let start = 1; start <= killedSyncRecords; start += 500) {
      await admin('people').insert(Array.from({ length: 500 }, (_, offset) => ({ id: start + offset, name: `Person ${start + offset}` })));
    }
    await admin('ticks').insert({ id: 1 });
    runtime = await openRuntime(database());
    definitions = writeDefinitions(database(), objects, syncs);
    scheduleDefinitions = writeDefinitions(database(), objects, scheduledSync);
  });

  after(async () => {
    await Promise.all(running.map((process) => process.stop('SIGKILL')));
    await runtime?.close();
  });

  it(`three daemons drain ${itemCount} items, each executed exactly once`, { timeout: 300_000 }, async () => {
    const enqueueRange = async (from: number, to: number) => {
      for (let id = from; id <= to; id += 1)
        await enqueue(runtime, { processId: 'record-execution', startType: 'AdHoc', sourceId: String(id), maxAttempts: 3 });
    };
    // Half waits before any daemon runs; the other half arrives while they work.
    await enqueueRange(1, itemCount / 2);
    const daemons = [1, 2, 3].map(() => daemon(definitions, runtimeUrl(database())));
    running.push(...daemons);
    await Promise.all(daemons.map((d) => d.waitForLog((entry) => entry.msg === 'daemon running')));
    await enqueueRange(itemCount / 2 + 1, itemCount);
    await waitUntil(`${itemCount} Complete items`, async () => (await countByStatus(runtime)).Complete === itemCount, 240_000, 250).catch(
      async (error: Error) => {
        throw new Error(
          `${error.message}; queue: ${JSON.stringify(await countByStatus(runtime))}; daemon problems: ${JSON.stringify(daemons.flatMap((d) => d.logs.filter((entry) => entry.level >= 40)).slice(0, 5))}`,
        );
      },
    );
    await stopAll(daemons);

    assert.deepEqual(await countByStatus(runtime), { Pending: 0, InProgress: 0, Complete: itemCount, Failed: 0 });
    const admin = database().admin;
    const [totals] = (await admin('executions').count({ executions: '*' }).countDistinct({ jobs: 'job_id' })) as Array<{
      executions: number | string;
      jobs: number | string;
    }>;
    assert.equal(Number(totals!.executions), itemCount, 'executions in all');
    assert.equal(Number(totals!.jobs), itemCount, 'distinct jobs executed');
    const workers = (await runtime.knex('queue_items').distinct('locked_by').where('process_id', 'record-execution')) as Array<{
      locked_by: string;
    }>;
    assert.ok(workers.length >= 2, `the work was shared: ${workers.length} worker(s) ran items`);
  });

  it(`a daemon killed with SIGKILL mid-sync: the item is taken back after the lease and the ${killedSyncRecords} records are written once each`, {
    timeout: 180_000,
  }, async () => {
    const lease = { SYNCLINE_LEASE: '2s' };
    const first = daemon(definitions, runtimeUrl(database()), lease);
    running.push(first);
    const { item } = await enqueue(runtime, { processId: 'copy-people', startType: 'manual', maxAttempts: 3 });
    const admin = database().admin;
    const copied = async () => Number(((await admin('copies').count({ n: '*' })) as Array<{ n: number | string }>)[0]!.n);
    await waitUntil('the first daemon to be part-way through the sync', async () => (await copied()) >= 300, 60_000, 10);
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = await copied();
    assert.ok(atKill < killedSyncRecords, `the sync was still running when killed (${atKill} records copied)`);
    assert.equal((await getItem(runtime, item.id))!.status, 'InProgress', 'the killed daemon left its item InProgress');

    const second = daemon(definitions, runtimeUrl(database()), lease);
    running.push(second);
    await waitUntil('the item to finish', async () => (await getItem(runtime, item.id))!.status === 'Complete', 120_000, 200);
    await stopAll([second]);

    const finished = (await getItem(runtime, item.id))!;
    assert.equal(finished.attempts, 2, `the lost attempt counts, the second one finished: ${JSON.stringify(finished)}`);
    assert.match(finished.errors[0]?.message ?? '', /lost its worker .* returned to Pending for attempt 2 of 3/);
    const statistics = finished.statistics!;
    assert.equal(statistics.read, killedSyncRecords);
    assert.equal(statistics.failed, 0);
    // What the killed daemon wrote is found as the second attempt maps it: left as it is (unchanged), not written again.
    const unchanged = statistics.unchanged ?? 0;
    assert.equal(statistics.created + statistics.updated + unchanged, killedSyncRecords);
    assert.ok(
      statistics.updated + unchanged >= atKill,
      `records the killed daemon wrote were found, not duplicated (${statistics.updated} updated, ${unchanged} unchanged, ${atKill} written before the kill)`,
    );
    const [totals] = (await admin('copies').count({ rows: '*' }).countDistinct({ ids: 'id' })) as Array<{
      rows: number | string;
      ids: number | string;
    }>;
    assert.equal(Number(totals!.rows), killedSyncRecords);
    assert.equal(Number(totals!.ids), killedSyncRecords);
    const wrong = await admin('copies').join('people', 'people.id', 'copies.id').whereRaw('copies.name <> people.name').count({ n: '*' });
    assert.equal(Number((wrong as Array<{ n: number | string }>)[0]!.n), 0, 'every copy holds its record');
  });

  it('two daemons with the same schedule enqueue one item per slot', { timeout: 60_000 }, async () => {
    const daemons = [daemon(scheduleDefinitions, runtimeUrl(database())), daemon(scheduleDefinitions, runtimeUrl(database()))];
    await Promise.all(daemons.map((d) => d.waitForLog((entry) => entry.msg === 'daemon running')));
    running.push(...daemons);
    const scheduled = async () =>
      (await runtime.knex('queue_items').where('process_id', 'every-two-seconds').select('slot_key', 'status', 'start_type')) as Array<{
        slot_key: string;
        status: string;
        start_type: string;
      }>;
    await waitUntil(
      'three scheduled slots to be run',
      async () => (await scheduled()).filter((item) => item.status === 'Complete').length >= 3,
      30_000,
      200,
    );
    await stopAll(daemons);

    const items = await scheduled();
    const slots = new Set(items.map((item) => item.slot_key));
    assert.equal(slots.size, items.length, `one item per slot: ${items.map((item) => item.slot_key).join(', ')}`);
    for (const item of items) {
      assert.equal(item.start_type, 'repeat');
      assert.match(
        item.slot_key,
        /^every-two-seconds@\d{4}-\d\d-\d\dT\d\d:\d\d:\d[02468]\.000Z$/,
        'slots fall on multiples of the interval',
      );
    }
  });
});
