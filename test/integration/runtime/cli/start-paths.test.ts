/**
 * The quickstart sync started the ways an integration engineer starts it, through real processes:
 * `syncline serve` with its in-process daemon (StartProcessAdHoc, AddAction polled to Complete),
 * and `serve --no-daemon` next to a `syncline daemon` started later (items wait Pending until a
 * daemon runs, as the seed says). Direct runs, ExecuteProcess and `syncline run` have their own tests;
 * here, only how `serve` stops while an ExecuteProcess request still waits for its run.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import knexFactory from 'knex';
import { createSqliteFromScript } from '../../../../examples/quickstart/sql-script.js';
import { projectRoot, startCli, type CliProcess } from '../../../support/cli-process.js';

const quickstart = join(projectRoot, 'examples', 'quickstart');
const token = 'start-paths-operator-token';

interface Item {
  ID: string;
  StartType: string;
  Status: string;
  Statistics?: { Read: number; Created: number; Updated: number; Skipped: number; Failed: number };
}

describe('quickstart sync through the queue, with real processes', () => {
  let dir: string;
  let env: Record<string, string>;
  const processes: CliProcess[] = [];

  async function serve(extra: string[] = []): Promise<string> {
    const server = startCli(['serve', '--definitions', quickstart, '--port', '0', ...extra], { env });
    processes.push(server);
    const line = await server.waitForLog((entry) => /^serving on /.test(entry.msg));
    return line.msg.replace('serving on ', '');
  }

  async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Item }> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Item };
  }

  async function finished(base: string, id: string): Promise<Item> {
    for (let waited = 0; waited < 20_000; waited += 100) {
      const { json } = await call(base, 'GET', `/api/GetAction/${id}`);
      if (json.Status === 'Complete' || json.Status === 'Failed') return json;
      await sleep(100);
    }
    throw new Error(`item ${id} did not finish within 20 s`);
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'syncline-start-paths-'));
    await createSqliteFromScript(join(dir, 'crm.sqlite'), join(quickstart, 'data', 'crm.sql'));
    await createSqliteFromScript(join(dir, 'erp.sqlite'), join(quickstart, 'data', 'erp.sql'));
    env = {
      CRM_DB: join(dir, 'crm.sqlite'),
      ERP_DB: join(dir, 'erp.sqlite'),
      QUICKSTART_API_TOKEN: token,
      SYNCLINE_POLL_INTERVAL: '200ms',
    };
  });

  after(async () => {
    await Promise.all(processes.map((process) => process.stop('SIGKILL')));
    await rm(dir, { recursive: true, force: true });
  });

  it('serve runs ad-hoc and AddAction items with its own daemon', async () => {
    const base = await serve(['--db', `sqlite:${join(dir, 'serve.db')}`]);
    const adHoc = await call(base, 'POST', '/api/StartProcessAdHoc/crm-customers-to-erp/1');
    assert.equal(adHoc.status, 200);
    assert.equal(adHoc.json.StartType, 'AdHoc');
    const one = await finished(base, adHoc.json.ID);
    assert.equal(one.Status, 'Complete');
    assert.deepEqual(
      one.Statistics,
      { Read: 1, Created: 1, Updated: 0, Skipped: 0, Failed: 0, Unchanged: 0 },
      'customer 1 became an account',
    );

    const whole = await call(base, 'POST', '/api/AddAction', { ProcessId: 'crm-customers-to-erp', StartType: 'manual' });
    assert.equal(whole.status, 200);
    const all = await finished(base, whole.json.ID);
    assert.equal(all.Status, 'Complete');
    assert.deepEqual(
      all.Statistics,
      { Read: 5, Created: 2, Updated: 2, Skipped: 1, Failed: 0, Unchanged: 0 },
      'customer 1 is updated now, the other active ones created or updated, the one without email skipped',
    );
    assert.equal((await processes[0]!.stop('SIGTERM')).code, 0);
  });

  it('stops within its drain time while an ExecuteProcess request waits for its run, handing the run back', async () => {
    // A source that never answers: the run waits on it until it is interrupted.
    const stalled = createServer(() => {});
    stalled.listen(0, '127.0.0.1');
    await once(stalled, 'listening');
    try {
      const folder = join(dir, 'stalled');
      await mkdir(folder);
      await writeFile(
        join(folder, 'stalled.yaml'),
        `kind: System
id: stalled
connector: http
connection: { baseUrl: "http://127.0.0.1:${(stalled.address() as AddressInfo).port}/" }
objects:
  Thing:
    list: { path: /things }
    key: [id]
    fields:
      id: { type: Integer }
---
kind: System
id: store
connector: sql
connection: { client: sqlite3, filename: ${JSON.stringify(join(dir, 'erp.sqlite'))} }
objects:
  Account:
    table: accounts
    key: [AccountNumber]
    fields:
      AccountNumber: { type: String }
---
kind: Sync
id: stalled-to-store
source: { system: stalled, object: Thing }
target: { system: store, object: Account }
mapping: '{ "AccountNumber": $string(id) }'
---
kind: ApiClient
id: operator
token: \${env:QUICKSTART_API_TOKEN}
scopes: [queue:read, queue:write]
`,
      );
      const server = startCli(
        ['serve', '--definitions', folder, '--port', '0', '--no-daemon', '--db', `sqlite:${join(dir, 'stalled.db')}`],
        {
          env: { ...env, SYNCLINE_DRAIN_TIME: '1s', SYNCLINE_SYNC_TIME_LIMIT: '60s' },
        },
      );
      processes.push(server);
      const base = (await server.waitForLog((entry) => /^serving on /.test(entry.msg))).msg.replace('serving on ', '');
      const answer = call(base, 'POST', '/api/ExecuteProcess/stalled-to-store', { StartType: 'manual' });
      await server.waitForLog((entry) => entry.msg === 'item started');
      const stopping = Date.now();
      const exited = server.stop('SIGTERM');
      const { status, json } = await answer;
      // Before, the close waited for the request, which waited its 60 s for the run.
      assert.equal((await exited).code, 0);
      assert.ok(Date.now() - stopping < 30_000, `stopped after ${Date.now() - stopping} ms, not within its drain time`);
      assert.equal(status, 202, JSON.stringify(json));
      assert.equal(json.Status, 'InProgress', 'answered as it stood when interrupted');
      const db = knexFactory({ client: 'sqlite3', connection: { filename: join(dir, 'stalled.db') }, useNullAsDefault: true });
      try {
        const [row] = await db('queue_items').where({ id: json.ID }).select('status', 'attempts');
        assert.deepEqual(row, { status: 'Pending', attempts: 0 }, 'handed back to the queue, its attempt given back');
      } finally {
        await db.destroy();
      }
    } finally {
      stalled.closeAllConnections();
      stalled.close();
    }
  });

  it('serve --no-daemon leaves items Pending until a daemon starts', async () => {
    const runtime = `sqlite:${join(dir, 'split.db')}`;
    const base = await serve(['--db', runtime, '--no-daemon']);
    const added = await call(base, 'POST', '/api/AddAction', { ProcessId: 'crm-customers-to-erp', StartType: 'manual' });
    await sleep(1500);
    assert.equal((await call(base, 'GET', `/api/GetAction/${added.json.ID}`)).json.Status, 'Pending', 'no daemon, no run');
    const ready = await fetch(`${base}/readyz`).then(
      (response) => response.json() as Promise<{ queue: { Pending: number; daemon: string } }>,
    );
    assert.equal(ready.queue.Pending, 1);
    assert.equal(ready.queue.daemon, 'inactive');

    const worker = startCli(['daemon', '--definitions', quickstart, '--db', runtime], { env });
    processes.push(worker);
    const item = await finished(base, added.json.ID);
    assert.equal(item.Status, 'Complete');
    assert.equal(item.Statistics?.Read, 5);
    assert.equal((await worker.stop('SIGTERM')).code, 0);
  });
});
