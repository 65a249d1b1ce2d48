/**
 * `syncline serve` as operators run it: a child process on a free port, answering /healthz and
 * /readyz, reloading edited definitions, refusing to start on invalid ones, stopping on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { displayPath } from '../../../../definitions/load/find-files.js';
import { cliEnv, runCli } from '../../../support/cli-process.js';

const root = resolve(import.meta.dirname, '../../../..');
const bin = join(root, 'bin', 'syncline-dev.js');
const quickstart = join(root, 'examples', 'quickstart');

/** Values the quickstart reads from the environment; none of them may show up in /readyz. */
const secrets = {
  QUICKSTART_API_TOKEN: `api-token-${process.pid}-do-not-show`,
  CRM_WEBHOOK_SECRET: `webhook-secret-${process.pid}-do-not-show`,
  CRM_DB: `/var/data/crm-${process.pid}-do-not-show.sqlite`,
  ERP_DB: `/var/data/erp-${process.pid}-do-not-show.sqlite`,
};

interface Served {
  child: ChildProcess;
  /** http://host:port, as the "serving on" log line tells it. */
  base: string;
  /** Parsed JSON log lines from standard output, as they arrive. */
  logs: Array<{ level: number; msg: string; [field: string]: unknown }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function serve(definitions: string): Promise<Served> {
  const child = spawn(process.execPath, [bin, 'serve', '--definitions', definitions, '--port', '0'], {
    cwd: root,
    env: cliEnv(secrets),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const logs: Served['logs'] = [];
  const listening = new Promise<string>((resolveBase, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Served['logs'][number];
      logs.push(entry);
      const match = /^serving on (http:\/\/\S+)$/.exec(entry.msg);
      if (match) resolveBase(match[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
    setTimeout(() => reject(new Error(`serve did not report listening within 20 s: ${stderr}`)), 20_000).unref();
  });
  try {
    return { child, base: await listening, logs, exited };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** Runs the CLI to completion. */
const run = (args: string[]) => runCli(args);

async function copyQuickstart(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'syncline-serve-'));
  for (const name of await readdir(quickstart)) {
    if (name.endsWith('.yaml')) await copyFile(join(quickstart, name), join(dir, name));
  }
  return dir;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

interface Readyz {
  status: string;
  snapshot: { digest: string; loadedAt: string; files: number; definitions: Record<string, number> };
  lastReload: { at: string; ok: boolean; durationMs: number; problems: string[] };
}

async function readyz(base: string): Promise<Readyz> {
  const response = await fetch(`${base}/readyz`);
  assert.equal(response.status, 200);
  return (await response.json()) as Readyz;
}

/** Polls /readyz until `condition` holds. */
async function readyzUntil(base: string, condition: (body: Readyz) => boolean, what: string, timeoutMs = 5000): Promise<Readyz> {
  const deadline = performance.now() + timeoutMs;
  let body = await readyz(base);
  while (!condition(body)) {
    if (performance.now() > deadline)
      assert.fail(`/readyz did not show ${what} within ${timeoutMs} ms; last answer: ${JSON.stringify(body)}`);
    await sleep(25);
    body = await readyz(base);
  }
  return body;
}

/** Log lines travel through a pipe: they may arrive a moment after the HTTP answer. */
async function eventually(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) assert.fail(`no ${what} within ${timeoutMs} ms`);
    await sleep(10);
  }
}

describe('syncline serve', () => {
  let dir: string;
  let served: Served;
  before(async () => {
    dir = await copyQuickstart();
    served = await serve(dir);
  });
  after(async () => {
    if (served?.child.exitCode === null) served.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('logs the real port when given --port 0', () => {
    assert.match(served.base, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(served.base).port, '0');
  });

  it('answers /healthz', async () => {
    const response = await fetch(`${served.base}/healthz`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await response.json(), { status: 'ok' });
  });

  it('answers /readyz with the digest and how many definitions of each kind, and no secret', async () => {
    const response = await fetch(`${served.base}/readyz`);
    assert.equal(response.status, 200);
    const text = await response.text();
    const body = JSON.parse(text) as Readyz;
    assert.equal(body.status, 'ready');
    assert.match(body.snapshot.digest, /^[0-9a-f]{64}$/);
    assert.deepEqual(body.snapshot.definitions, { System: 2, Sync: 1, Webhook: 1, Flow: 0, ApiClient: 1 });
    assert.equal(body.snapshot.files, 4);
    assert.equal(body.lastReload.ok, true);
    assert.deepEqual(body.lastReload.problems, []);
    for (const [name, value] of Object.entries(secrets)) assert.ok(!text.includes(value), `/readyz shows ${name}`);
    for (const leak of ['quickstart-token-change-me', 'quickstart-webhook-secret', '.sqlite', 'filename', 'password', 'token', 'secret']) {
      assert.ok(!text.toLowerCase().includes(leak), `/readyz mentions '${leak}': ${text}`);
    }
  });

  it('matches routes case-insensitively and answers 404 for unknown ones', async () => {
    assert.equal((await fetch(`${served.base}/HEALTHZ`)).status, 200);
    const ready = await fetch(`${served.base}/ReadyZ`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as Readyz).status, 'ready');
    assert.equal((await fetch(`${served.base}/nothing-here`)).status, 404);
    assert.equal((await fetch(`${served.base}/healthz/extra`)).status, 404);
  });

  it('shows a valid edit in /readyz within a few seconds', async () => {
    const before = await readyz(served.base);
    const syncs = join(dir, 'syncs.yaml');
    const text = await readFile(syncs, 'utf8');
    await writeAtomically(syncs, text.replace('batchSize: 500', 'batchSize: 400'));
    const after = await readyzUntil(served.base, (body) => body.snapshot.digest !== before.snapshot.digest, 'a new digest');
    assert.equal(after.lastReload.ok, true);
    assert.deepEqual(after.snapshot.definitions, before.snapshot.definitions);
    await eventually(() => served.logs.some((entry) => entry.msg === 'definitions reloaded'), 'the reload logged');
  });

  it('keeps serving the old digest after a broken edit and shows the problem line in /readyz', async () => {
    const before = await readyz(served.base);
    const syncs = join(dir, 'syncs.yaml');
    const text = await readFile(syncs, 'utf8');
    const broken = text.replace('object: Account', 'object: Acount');
    await writeAtomically(syncs, broken);
    const rejected = await readyzUntil(served.base, (body) => !body.lastReload.ok, 'the rejected reload');

    const lines = broken.split('\n');
    const line = lines.findIndex((l) => l.includes('object: Acount')) + 1;
    const column = lines[line - 1]!.indexOf('Acount') + 1;
    const expected = `${displayPath(syncs, root)}:${line}:${column}: Sync/crm-customers-to-erp: target.object: System 'erp' has no object 'Acount'`;
    assert.ok(
      rejected.lastReload.problems.some((p) => p.startsWith(expected)),
      `${JSON.stringify(rejected.lastReload.problems)} has ${expected}`,
    );
    assert.equal(rejected.snapshot.digest, before.snapshot.digest, 'the old snapshot keeps serving');
    assert.deepEqual(rejected.snapshot.definitions, before.snapshot.definitions);
    await eventually(
      () => served.logs.some((entry) => entry.level === 40 && entry.msg.includes(expected)),
      'the rejection logged as a warning with the problem line',
    );

    await writeAtomically(syncs, text);
    const repaired = await readyzUntil(served.base, (body) => body.lastReload.ok, 'the repaired file');
    assert.equal(repaired.snapshot.digest, before.snapshot.digest, 'the same files give the same digest again');
  });

  it('exits 0 on SIGTERM', async () => {
    served.child.kill('SIGTERM');
    const { code, signal } = await served.exited;
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
    await eventually(
      () => served.logs.some((entry) => entry.msg === 'shutting down' && entry.signal === 'SIGTERM'),
      "the 'shutting down' line",
    );
  });
});

describe('syncline serve refuses to start', { concurrency: true }, () => {
  it('exits 1 with one line per problem when the definitions are invalid', async () => {
    const dir = await copyQuickstart();
    try {
      const syncs = join(dir, 'syncs.yaml');
      await writeFile(syncs, (await readFile(syncs, 'utf8')).replace('system: crm', 'system: crn'));
      const { code, stderr } = await run(['serve', '--definitions', dir, '--port', '0']);
      assert.equal(code, 1, stderr);
      assert.match(
        stderr,
        new RegExp(
          `^${escape(displayPath(syncs, root))}:\\d+:\\d+: Sync/crm-customers-to-erp: source\\.system: unknown System 'crn'; did you mean 'crm'\\?$`,
          'm',
        ),
      );
      assert.match(stderr, /^not serving: 1 problem\(s\) in /m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 for a port that is not a number', async () => {
    const { code, stderr } = await run(['serve', '--definitions', quickstart, '--port', 'abc']);
    assert.equal(code, 2);
    assert.match(stderr, /--port must be a port number from 0 to 65535, not 'abc'/);
  });

  it('exits 2 for a definitions directory that does not exist', async () => {
    const { code, stderr } = await run(['serve', '--definitions', join(tmpdir(), `syncline-missing-${process.pid}`), '--port', '0']);
    assert.equal(code, 2);
    assert.match(stderr, /no such file or directory/);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
