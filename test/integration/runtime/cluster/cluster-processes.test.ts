/**
 * The cluster view with real processes on each runtime database (SQLite, PostgreSQL, MariaDB), as
 * operators scale out: one `syncline serve --no-daemon` and two `syncline daemon` workers, one of
 * them serving its probes (`--http-port 0`).
 *
 * - /readyz of the API process, which runs no daemon, reports both workers (and, before they
 *   start, that none runs and Pending items stay Pending); an item it enqueues is run by them;
 * - the worker's probe port answers /healthz, /readyz and /metrics;
 * - a worker killed with SIGKILL drops out of /readyz once its heartbeats stop (three missed
 *   ones: here 3 × 300 ms); one stopped with SIGTERM is gone the moment it has exited.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCli, type CliProcess } from '../../../support/cli-process.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { runtimeUrl, writeDefinitions } from '../../../faults/fault-setup.js';

const adminToken = 'cluster-view-admin-token-0123456789';
/** Short heartbeats, so a killed worker is gone within a second. */
const env = { SYNCLINE_ADMIN_TOKEN: adminToken, SYNCLINE_DAEMON_HEARTBEAT: '300ms', SYNCLINE_POLL_INTERVAL: '200ms' };

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

const syncs = `kind: Sync
id: record-execution
source: { system: work, object: Job }
target: { system: work, object: Execution }
mapping: '{ "job_id": id }'`;

/** The URL a process logged it listens on (`serving on …`, `probes on …`). */
async function listeningOn(process: CliProcess, prefix: string): Promise<string> {
  const entry = await process.waitForLog((line) => line.msg.startsWith(prefix));
  return entry.msg.slice(prefix.length);
}

async function getJson(url: string): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${adminToken}` } });
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
  return { status: response.status, json, text, headers: response.headers };
}

/** Polls `read` until `done` accepts its answer; fails with `what` after `timeoutMs`. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

await describeEachDatabase('cluster view across processes', (database) => {
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
    await admin('jobs').insert([{ id: 1 }, { id: 2 }]);
    definitions = writeDefinitions(database(), objects, syncs);
    url = runtimeUrl(database());
  });

  after(async () => {
    await Promise.all(started.map((process) => process.stop('SIGKILL')));
  });

  it('the API process reports the daemons that run elsewhere, and they go when they stop', { timeout: 120_000 }, async () => {
    const api = start(['serve', '--no-daemon', '--port', '0']);
    const base = await listeningOn(api, 'serving on ');
    const readyz = () => getJson(`${base}/readyz`);

    const alone = await readyz();
    assert.equal(alone.status, 200, alone.text);
    assert.equal(alone.json.queue.daemon, 'inactive');
    assert.deepEqual(alone.json.queue.daemons, { count: 0, list: [] });
    assert.match(alone.json.queue.note, /no daemon is active .* Pending items stay Pending/);

    const worker = start(['daemon', '--http-port', '0']);
    const other = start(['daemon']);
    const probes = await listeningOn(worker, 'probes on ');
    const ids = await Promise.all(
      [worker, other].map(async (process) => String((await process.waitForLog((line) => line.msg === 'daemon running')).workerId)),
    );
    const both = await readyz();
    assert.equal(both.json.queue.daemon, 'active', both.text);
    assert.equal(both.json.queue.daemons.count, 2);
    assert.deepEqual(new Set(both.json.queue.daemons.list.map((d: { id: string }) => d.id)), new Set(ids));
    for (const listed of both.json.queue.daemons.list) {
      assert.deepEqual(Object.keys(listed).sort(), ['command', 'concurrency', 'host', 'id', 'lastHeartbeat', 'running', 'startedAt']);
      assert.equal(listed.command, 'daemon');
      assert.equal(listed.concurrency, 4);
    }
    assert.equal(both.json.queue.note, undefined);
    assert.doesNotMatch(both.text, new RegExp(`${adminToken}|password|postgres://|mysql://|\\.db"`), 'no secret, no database address');

    // An item the API enqueues is run by a worker.
    const added = await fetch(`${base}/api/AddAction`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ProcessId: 'record-execution', StartType: 'AdHoc', SourceId: '1' }),
    });
    const item = (await added.json()) as { ID: string };
    await until(
      'the item to be run by a worker',
      async () => (await getJson(`${base}/api/GetAction/${item.ID}`)).json.Status,
      (status) => status === 'Complete',
    );

    // The worker's probes.
    const health = await getJson(`${probes}/healthz`);
    assert.deepEqual([health.status, health.json], [200, { status: 'ok' }]);
    assert.match(health.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const workerReady = await getJson(`${probes}/readyz`);
    assert.equal(workerReady.status, 200, workerReady.text);
    assert.equal(workerReady.json.status, 'ready');
    assert.equal(workerReady.json.snapshot.definitions.Sync, 1);
    assert.equal(workerReady.json.queue.daemons.count, 2);
    const metrics = await until(
      "the worker's metrics to show the run",
      async () => (await getJson(`${probes}/metrics`)).text,
      (text) => /^syncline_queue_items\{status="Complete",sync="record-execution"\} 1$/m.test(text),
    );
    assert.match(metrics, /^syncline_daemons_active 2$/m);
    assert.match(metrics, /^syncline_queue_oldest_pending_age_seconds 0$/m);
    assert.match(metrics, /^syncline_http_requests_total\{method="GET",route="\/readyz",status="200"\} 1$/m);
    assert.match(metrics, /^syncline_runtime_db_connections\{state="used"\} \d+$/m);
    const missing = await getJson(`${probes}/api/AddAction`);
    assert.equal(missing.status, 404);
    assert.match(missing.json.detail, /This port answers GET \/healthz, \/readyz and \/metrics/);

    // Killed: gone once three heartbeats are missed. Stopped: gone at once.
    other.child.kill('SIGKILL');
    await other.exited;
    const killedAt = Date.now();
    const afterKill = await until('the killed daemon to drop out', readyz, (answer) => answer.json.queue.daemons.count === 1);
    assert.ok(Date.now() - killedAt < 10_000);
    assert.deepEqual(
      afterKill.json.queue.daemons.list.map((d: { id: string }) => d.id),
      [ids[0]],
    );

    const stopped = await worker.stop('SIGTERM');
    assert.equal(stopped.code, 0, worker.stderr());
    const afterStop = await readyz();
    assert.deepEqual(afterStop.json.queue.daemons, { count: 0, list: [] }, 'a clean stop removes the daemon at once');
    assert.equal(afterStop.json.queue.daemon, 'inactive');

    assert.equal((await api.stop('SIGTERM')).code, 0, api.stderr());
  });
});
