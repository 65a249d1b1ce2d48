/**
 * The quickstart sync started the ways an integration engineer starts it, through real processes:
 * `syncline serve` with its in-process daemon (StartProcessAdHoc, AddAction polled to Complete),
 * and `serve --no-daemon` next to a `syncline daemon` started later (items wait Pending until a
 * daemon runs, as the seed says). Direct runs, ExecuteProcess and `syncline run` have their own tests.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
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
