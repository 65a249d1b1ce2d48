/**
 * GET /api/queue/{id}/events across processes, on each runtime database (SQLite, PostgreSQL,
 * MariaDB): the stream is served by `syncline serve --no-daemon` and the item is run by a separate
 * `syncline daemon`, so everything the stream shows after the first event came from the database
 * the daemon wrote — no in-process signal could have carried it. The stream is opened before the
 * daemon starts, so the item is seen Pending first, and its statistics grow past a progress report
 * (the lease of 1 s stores them every third of a second) before it ends Complete.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { readEventStream } from '../../../../runtime/cli/read-event-stream.js';
import { startCli, type CliProcess } from '../../../support/cli-process.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { runtimeUrl, writeDefinitions } from '../../../faults/fault-setup.js';

const adminToken = 'item-events-admin-token-0123456789';
const env = { SYNCLINE_ADMIN_TOKEN: adminToken, SYNCLINE_POLL_INTERVAL: '200ms', SYNCLINE_LEASE: '1s' };
const jobCount = 3000;

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
      job_id: { type: Integer, required: true }`;

// Small batches, so the run takes long enough for a progress report to be stored and read.
const syncs = `kind: Sync
id: record-execution
source: { system: work, object: Job, order: id asc }
target: { system: work, object: Execution }
mapping: '{ "job_id": id }'
batchSize: 50`;

await describeEachDatabase('queue item events across processes', (database) => {
  let definitions: string;
  let url: string;
  const started: CliProcess[] = [];
  const start = (args: string[]): CliProcess => {
    const process = startCli([...args, '--definitions', definitions, '--db', url], { env });
    started.push(process);
    return process;
  };

  before(async () => {
    const admin = database().admin;
    await admin.schema.createTable('jobs', (table) => table.integer('id').primary());
    await admin.schema.createTable('executions', (table) => {
      table.increments('seq');
      table.integer('job_id').notNullable();
    });
    for (let first = 1; first <= jobCount; first += 500)
      await admin('jobs').insert(Array.from({ length: 500 }, (_, offset) => ({ id: first + offset })));
    definitions = writeDefinitions(database(), objects, syncs);
    url = runtimeUrl(database());
  });

  after(async () => {
    await Promise.all(started.map((process) => process.stop('SIGKILL')));
  });

  it('streams the run of a daemon in another process from Pending to Complete', { timeout: 120_000 }, async () => {
    const api = start(['serve', '--no-daemon', '--port', '0']);
    const prefix = 'serving on ';
    const base = (await api.waitForLog((line) => line.msg.startsWith(prefix))).msg.slice(prefix.length);
    const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
    const added = await fetch(`${base}/api/AddAction`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ProcessId: 'record-execution', StartType: 'manual' }),
    });
    const id = ((await added.json()) as { ID: string }).ID;

    const response = await fetch(`${base}/api/queue/${id}/events`, { headers });
    assert.equal(response.status, 200);
    const events: Array<{ event: string; data: any }> = [];
    for await (const event of readEventStream(response.body!)) {
      events.push({ event: event.event, data: JSON.parse(event.data) });
      // Started only once the stream has shown the item waiting.
      if (events.length === 1) start(['daemon']);
    }
    const names = events.map((e) => e.event);
    assert.equal(names[0], 'item');
    assert.equal(events[0]!.data.Status, 'Pending');
    assert.equal(names.at(-1), 'done', names.join(' '));
    assert.ok(
      names.slice(1, -1).every((name) => name === 'progress'),
      names.join(' '),
    );
    const done = events.at(-1)!.data;
    assert.equal(done.Status, 'Complete', JSON.stringify(done));
    assert.equal(done.Statistics.Read, jobCount);
    const running = events.filter((e) => e.event === 'progress').map((e) => e.data);
    assert.ok(
      running.some((item) => item.Status === 'InProgress'),
      `the run was seen InProgress: ${names.join(' ')}`,
    );
    assert.ok(
      running.some((item) => item.Statistics.Read > 0 && item.Statistics.Read < jobCount),
      `a progress report of the daemon arrived before the end: ${JSON.stringify(running.map((item) => item.Statistics.Read))}`,
    );
  });
});
