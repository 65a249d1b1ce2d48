/**
 * `syncline migrate` and `syncline daemon` as operators run them: real child processes on a
 * fresh SQLite file; the daemon runs what another process enqueued and stops cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { parseDatabaseUrl } from '../../../../runtime/database/database-url.js';
import { openDatabase } from '../../../../runtime/database/open-database.js';
import { enqueue } from '../../../../runtime/queue/enqueue.js';
import { getItem } from '../../../../runtime/queue/get-item.js';
import { cliEnv, runCli } from '../../../support/cli-process.js';
import { eventually } from './fake-runner.js';

const root = resolve(import.meta.dirname, '../../../..');
const bin = join(root, 'bin', 'syncline-dev.js');
const quickstartEnv = {
  QUICKSTART_API_TOKEN: 'cli-daemon-test-token-0123456789',
  CRM_WEBHOOK_SECRET: 'cli-daemon-test-secret-0123456789',
  CRM_DB: '/nonexistent/crm.sqlite',
  ERP_DB: '/nonexistent/erp.sqlite',
};

const run = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...quickstartEnv, ...extra } });

let folder: string;
before(async () => {
  folder = await mkdtemp(join(tmpdir(), 'syncline-cli-daemon-'));
});
after(async () => {
  await rm(folder, { recursive: true, force: true });
});

test('migrate applies the migrations once, then finds the database up to date', async () => {
  const db = `sqlite:${join(folder, 'migrate.db')}`;
  const first = await run(['migrate', '--db', db]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /^applied 001-queue-items$/m);
  const second = await run(['migrate'], { SYNCLINE_DB: db });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /is up to date/);
});

test('migrate says at once, not after its minute of waiting, that another process holds the migration lock', async () => {
  const file = join(folder, 'locked.db');
  assert.equal((await run(['migrate', '--db', `sqlite:${file}`])).code, 0);
  const db = await openDatabase(parseDatabaseUrl(`sqlite:${file}`));
  try {
    await db.knex('syncline_migrations_lock').update({ is_locked: 1 });
  } finally {
    await db.close();
  }
  const child = spawn(process.execPath, [bin, 'migrate', '--db', `sqlite:${file}`], {
    cwd: root,
    env: cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const line = await new Promise<string>((resolveLine, reject) => {
      const timer = setTimeout(() => reject(new Error('no notice within 10s')), 10_000);
      createInterface({ input: child.stderr }).on('line', (text) => {
        clearTimeout(timer);
        resolveLine(text);
      });
    });
    assert.match(line, /^waiting for the migration lock of the runtime database .*locked\.db: another process holds it/);
    assert.match(line, /set is_locked = 0 in syncline_migrations_lock and run syncline migrate again$/);
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
});

test('a database that cannot be opened is one line and exit 1; a bad setting is exit 2 naming it', async () => {
  const missing = await run(['migrate', '--db', join(folder, 'no-such-folder', 'x.db')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: cannot open the runtime database .*does not exist.*\n$/);
  const daemon = await run(['daemon', '--definitions', 'examples/quickstart', '--db', 'postgres://nobody@127.0.0.1:1/none']);
  assert.equal(daemon.code, 1);
  assert.equal(daemon.stderr.trim().split('\n').length, 1, daemon.stderr);
  const concurrency = await run(['daemon', '--concurrency', 'many']);
  assert.equal(concurrency.code, 2);
  assert.match(concurrency.stderr, /--concurrency must be a whole number/);
  const lease = await run(['daemon'], { SYNCLINE_LEASE: 'soon' });
  assert.equal(lease.code, 2);
  assert.match(lease.stderr, /SYNCLINE_LEASE must be a duration/);
  const probePort = await run(['daemon', '--http-port', 'http']);
  assert.equal(probePort.code, 2);
  assert.match(probePort.stderr, /--http-port must be a port number from 0 to 65535, not 'http'/);
  const heartbeat = await run(['daemon'], { SYNCLINE_DAEMON_HEARTBEAT: '1ms' });
  assert.equal(heartbeat.code, 2);
  assert.match(heartbeat.stderr, /SYNCLINE_DAEMON_HEARTBEAT must be at least 100ms/);
});

test('daemon runs items another process enqueued and exits 0 on SIGTERM', async () => {
  const url = `sqlite:${join(folder, 'daemon.db')}`;
  const child = spawn(process.execPath, [bin, 'daemon', '--definitions', 'examples/quickstart', '--db', url, '--concurrency', '2'], {
    cwd: root,
    env: cliEnv({ ...quickstartEnv, SYNCLINE_POLL_INTERVAL: '200ms' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const logs: Array<{ msg: string; [field: string]: unknown }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => logs.push(JSON.parse(line) as (typeof logs)[number]));
  const exited = once(child, 'exit');
  try {
    await eventually(() => logs.some((entry) => entry.msg === 'daemon running'), 20_000, `the daemon to start (${stderr})`);
    const db = await openDatabase(parseDatabaseUrl(url));
    try {
      const { item } = await enqueue(db, { processId: 'no-such-sync', startType: 'manual' });
      await eventually(async () => (await getItem(db, item.id))?.status === 'Failed', 10_000, 'the daemon to run the item');
      assert.match((await getItem(db, item.id))?.errors[0]?.message ?? '', /no-such-sync' is not defined/);
    } finally {
      await db.close();
    }
    // Log lines go out in batches, within 100 ms.
    await eventually(() => logs.some((entry) => entry.msg === 'item finished' && entry.status === 'Failed'), 5_000, 'the end logged');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, stderr);
    assert.ok(logs.some((entry) => entry.msg === 'daemon stopped'));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
