/**
 * Overlapping starts of one sync with real processes, on each runtime database: a `serve
 * --no-daemon` process takes four AddAction starts of one sync at once, and two `syncline daemon`
 * processes with four places each run them. The sync matches on a column without a unique index,
 * which is where overlapping runs used to double the target. Its default concurrency (one run at
 * a time across all processes) makes the four runs one after another: the target ends with
 * exactly one row per source record, and no two runs overlap in time.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { RuntimeDatabase } from '../../runtime/database/open-database.js';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { describeEachDatabase } from '../support/databases.js';
import { openRuntime, runtimeUrl, waitUntil, writeDefinitions } from './fault-setup.js';

const sources = 5000;
const starts = 4;
const token = 'overlap-test-admin-token';

const objects = `  Source:
    table: sources
    key: [id]
    fields:
      id: { type: Integer }
      ext_id: { type: String }
      name: { type: String }
  Target:
    table: targets
    key: [seq]
    fields:
      seq: { type: Integer, readOnly: true }
      ext_id: { type: String }
      name: { type: String }`;

const syncs = `kind: Sync
id: copy-by-ext-id
source: { system: work, object: Source, order: id asc }
target: { system: work, object: Target }
mapping: '{ "ext_id": ext_id, "name": name }'
match: { where: "ext_id = #ext_id#", onNoMatch: create, onMatch: update }
batchSize: 250`;

interface Item {
  ID: string;
  Status: string;
  StartedDate: string | null;
  FinishedDate: string | null;
  Statistics: { Read: number; Created: number; Updated: number; Failed: number };
}

await describeEachDatabase('overlapping runs of one sync', (database) => {
  let runtime: RuntimeDatabase;
  let definitions: string;
  const processes: CliProcess[] = [];

  before(async () => {
    const admin = database().admin;
    await admin.schema.createTable('sources', (table) => {
      table.integer('id').primary();
      table.string('ext_id', 32);
      table.string('name', 100);
    });
    await admin.schema.createTable('targets', (table) => {
      table.increments('seq');
      table.string('ext_id', 32);
      table.string('name', 100);
    });
    for (let start = 1; start <= sources; start += 500) {
      await admin('sources').insert(
        Array.from({ length: 500 }, (_, offset) => ({
          id: start + offset,
          ext_id: `X-${start + offset}`,
          name: `Record ${start + offset}`,
        })),
      );
    }
    runtime = await openRuntime(database());
    definitions = writeDefinitions(database(), objects, syncs);
  });

  after(async () => {
    await Promise.all(processes.map((process) => process.stop('SIGKILL')));
    await runtime?.close();
  });

  it(`${starts} AddAction starts at once, two daemons with 4 places each: one run at a time, ${sources} target rows for ${sources} sources`, {
    timeout: 240_000,
  }, async () => {
    const env = { SYNCLINE_ADMIN_TOKEN: token, SYNCLINE_POLL_INTERVAL: '200ms' };
    const server = startCli(['serve', '--no-daemon', '--definitions', definitions, '--db', runtimeUrl(database()), '--port', '0'], { env });
    processes.push(server);
    const address = (await server.waitForLog((entry) => /^serving on /.test(entry.msg), 60_000)).msg.replace('serving on ', '');
    const daemons = [1, 2].map(() =>
      startCli(['daemon', '--definitions', definitions, '--db', runtimeUrl(database()), '--concurrency', '4'], { env }),
    );
    processes.push(...daemons);
    await Promise.all(daemons.map((daemon) => daemon.waitForLog((entry) => entry.msg === 'daemon running', 60_000)));

    const call = async (path: string, body?: unknown): Promise<Item> => {
      const response = await fetch(`${address}/api/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.equal(response.status, 200, `${path}: ${await response.clone().text()}`);
      return (await response.json()) as Item;
    };
    const added = await Promise.all(
      Array.from({ length: starts }, () => call('AddAction', { ProcessId: 'copy-by-ext-id', StartType: 'manual' })),
    );
    const finished = async (): Promise<Item[]> => Promise.all(added.map((item) => call(`GetAction/${item.ID}`)));
    await waitUntil(
      `${starts} runs to finish`,
      async () => (await finished()).every((item) => item.Status === 'Complete' || item.Status === 'Failed'),
      200_000,
      250,
    );
    const items = await finished();

    for (const item of items) {
      assert.equal(item.Status, 'Complete', JSON.stringify(item));
      assert.equal(item.Statistics.Read, sources);
      assert.equal(item.Statistics.Failed, 0);
    }
    assert.deepEqual(
      items.map((item) => item.Statistics.Created).sort((x, y) => y - x),
      [sources, 0, 0, 0],
      'the first run created every record, the others updated them',
    );
    const spans = items.map((item) => [Date.parse(item.StartedDate!), Date.parse(item.FinishedDate!)] as const).sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i += 1)
      assert.ok(spans[i]![0] >= spans[i - 1]![1], `run ${i + 1} started after run ${i} finished: ${JSON.stringify(spans)}`);

    const admin = database().admin;
    const [totals] = (await admin('targets').count({ rows: '*' }).countDistinct({ keys: 'ext_id' })) as Array<{
      rows: number | string;
      keys: number | string;
    }>;
    assert.equal(Number(totals!.rows), sources, 'target rows');
    assert.equal(Number(totals!.keys), sources, 'distinct keys');
  });
});
