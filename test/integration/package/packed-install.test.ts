/**
 * The package as a definitions repository installs it, and the container image as operators run
 * it, from the packed tarball:
 *
 * - `npm pack` (which builds dist/ from nothing) → `npm install` of the tarball into an empty
 *   directory holding a definitions repository (the quickstart's files, their editor modeline
 *   pointing into node_modules/syncline/) → `npx syncline --version`, `npx syncline validate`,
 *   and every document checked against the editor schema the modeline names.
 * - The image replayed without Docker: the Dockerfile's ENV, USER and ENTRYPOINT + CMD read from
 *   the file itself, run as an unprivileged user on the installed package, with the definitions
 *   read-only and the runtime database in a data directory (standing in for /data); only the port
 *   differs (Docker maps it). /healthz, /readyz, the operator console at /console, a webhook call whose sync the daemon runs to
 *   Complete, and SIGTERM.
 * - With SYNCLINE_TEST_DOCKER=1 and a Docker engine, the same checks on the real image
 *   (`docker build`, `docker run --read-only`).
 *
 * Slow by nature (the install builds sqlite3): one file, run once per `npm test`.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createSqliteFromScript } from '../../../examples/quickstart/sql-script.js';
import { repoRoot } from '../../support/doc-examples.js';

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const adminToken = 'packed-admin-token-0123456789abcdef';
const webhookSecret = 'packed-webhook-secret';

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return result;
}

function succeeded(result: SpawnSyncReturns<string>, what: string): string {
  assert.equal(result.status, 0, `${what} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The Dockerfile's final stage as the image runs it: ENV, USER, ENTRYPOINT and CMD. */
interface ImageSpec {
  env: Record<string, string>;
  user: string;
  entrypoint: string[];
  cmd: string[];
}

function imageSpec(dockerfile: string): ImageSpec {
  const stages = dockerfile.replace(/\\\n/g, ' ').split(/^FROM /m);
  const final = stages[stages.length - 1]!;
  const spec: ImageSpec = { env: {}, user: 'root', entrypoint: [], cmd: [] };
  for (const line of final.split('\n')) {
    const [, instruction, rest] = /^(ENV|USER|ENTRYPOINT|CMD)\s+(.*)$/.exec(line.trim()) ?? [];
    if (instruction === 'ENV') for (const [, name, value] of rest!.matchAll(/(\w+)=(\S+)/g)) spec.env[name!] = value!;
    else if (instruction === 'USER') spec.user = rest!.trim();
    else if (instruction === 'ENTRYPOINT') spec.entrypoint = JSON.parse(rest!) as string[];
    else if (instruction === 'CMD') spec.cmd = JSON.parse(rest!) as string[];
  }
  return spec;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** The quickstart as a definitions repository of its own, its modelines pointing into the installed package. */
function writeDefinitionsRepository(definitions: string): void {
  mkdirSync(definitions, { recursive: true });
  const quickstart = join(repoRoot, 'examples', 'quickstart');
  for (const name of readdirSync(quickstart).filter((file) => file.endsWith('.yaml'))) {
    const text = readFileSync(join(quickstart, name), 'utf8').replace(
      '$schema=../../definitions/syncline.schema.json',
      '$schema=../node_modules/syncline/definitions/syncline.schema.json',
    );
    writeFileSync(join(definitions, name), text);
  }
}

/** What every variant checks on a running image: health, readiness, a webhook's sync run to Complete. */
async function checkRunningImage(base: string): Promise<void> {
  const health = await waitFor('/healthz', async () => {
    const answer = await fetch(`${base}/healthz`);
    return answer.ok ? answer : undefined;
  });
  assert.deepEqual(await health.json(), { status: 'ok' });
  const ready = await waitFor('/readyz', async () => {
    const answer = await fetch(`${base}/readyz`);
    return answer.status === 200
      ? ((await answer.json()) as { status: string; snapshot: { definitions: Record<string, number> } })
      : undefined;
  });
  assert.equal(ready.status, 'ready');
  assert.equal(ready.snapshot.definitions.Webhook, 1);

  // The operator console was built into the package (dist/console) and is served with its CSP.
  const consolePage = await fetch(`${base}/console`);
  assert.equal(consolePage.status, 200);
  assert.match(consolePage.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await consolePage.text())?.[1];
  assert.ok(script, 'index.html names the console script');
  assert.equal((await fetch(`${base}${script}`)).status, 200);

  const started = await fetch(`${base}/api/webhooks/wh_crmCustomerChanged01`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', service_webhooksecret: webhookSecret },
    body: JSON.stringify({ id: 2, event: 'customer.updated' }),
  });
  assert.equal(started.status, 200, await started.clone().text());
  const item = (await started.json()) as { ID: string };
  const finished = await waitFor('the webhook sync to finish', async () => {
    const answer = await fetch(`${base}/api/GetAction/${item.ID}`, { headers: { Authorization: `Bearer ${adminToken}` } });
    const body = (await answer.json()) as { Status: string; Statistics?: Record<string, number>; Errors?: unknown[] };
    return body.Status === 'Complete' || body.Status === 'Failed' ? body : undefined;
  });
  assert.equal(finished.Status, 'Complete', JSON.stringify(finished));
  assert.equal(finished.Statistics?.Read, 1);
}

describe('the packed package', () => {
  let work: string;
  let consumer: string;
  let installed: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'syncline-packed-'));
    // The unprivileged user the image runs as must reach the installed package.
    chmodSync(work, 0o755);
    const packed = succeeded(run('npm', ['pack', '--pack-destination', work, '--json'], repoRoot), 'npm pack');
    const { filename } = (JSON.parse(packed.slice(packed.indexOf('['))) as Array<{ filename: string }>)[0]!;
    consumer = join(work, 'acme-integrations');
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, 'package.json'),
      `${JSON.stringify({ name: 'acme-integrations', private: true, allowScripts: { sqlite3: true } }, null, 2)}\n`,
    );
    succeeded(
      run('npm', ['install', join(work, filename), '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], consumer),
      'npm install of the tarball',
    );
    installed = join(consumer, 'node_modules', 'syncline');
    writeDefinitionsRepository(join(consumer, 'definitions'));
  });
  after(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test('installs without its sources or tests, and `npx syncline --version` tells its version', () => {
    const files = readdirSync(installed);
    assert.ok(files.includes('dist') && files.includes('bin'), files.join(', '));
    assert.ok(!files.includes('test') && !files.includes('runtime'), `no sources or tests: ${files.join(', ')}`);
    assert.equal(succeeded(run('npx', ['syncline', '--version'], consumer), 'npx syncline --version').trim(), manifest.version);
  });

  test('`npx syncline validate definitions` accepts the repository', () => {
    const out = succeeded(run('npx', ['syncline', 'validate', 'definitions'], consumer), 'npx syncline validate');
    assert.match(out, /^valid: 4 files/);
  });

  test('`npx syncline test definitions` runs the test files beside the definitions, and they pass', () => {
    const out = succeeded(run('npx', ['syncline', 'test', 'definitions'], consumer), 'npx syncline test');
    assert.match(out, /^definitions\/syncs\.test\.yaml$/m);
    assert.match(out, /^(\d+) cases: \1 passed, 0 failed/m);
  });

  test('the editor modeline points at the installed schema, which accepts every document', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const name of readdirSync(join(consumer, 'definitions'))) {
      const path = join(consumer, 'definitions', name);
      const text = readFileSync(path, 'utf8');
      const schemaPath = /\$schema=(\S+)/.exec(text)?.[1];
      assert.ok(schemaPath, `${name} has a modeline`);
      const schema = JSON.parse(readFileSync(resolve(dirname(path), schemaPath), 'utf8')) as object;
      const validate = ajv.compile(schema);
      for (const document of parseAllDocuments(text)) {
        assert.ok(!Array.isArray(document) && document.errors.length === 0, `${name} parses`);
        const data = (document as { toJS(): unknown }).toJS();
        assert.ok(validate(data), `${name}: ${ajv.errorsText(validate.errors)}`);
      }
      ajv.removeSchema();
    }
  });

  test('the image, replayed from the Dockerfile: unprivileged, definitions read-only, a webhook sync run by the daemon', async () => {
    const image = imageSpec(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'));
    assert.equal(image.user, 'node', 'the image runs as an unprivileged user');
    assert.deepEqual(image.entrypoint, ['node', '/app/bin/syncline.js']);
    assert.equal(image.env.SYNCLINE_HOST, '0.0.0.0');

    const data = join(work, 'data');
    mkdirSync(data);
    // The quickstart's demo databases live with the data, not in the read-only definitions.
    await createSqliteFromScript(join(data, 'crm.sqlite'), join(repoRoot, 'examples/quickstart/data/crm.sql'));
    await createSqliteFromScript(join(data, 'erp.sqlite'), join(repoRoot, 'examples/quickstart/data/erp.sql'));
    writeFileSync(join(data, 'admin-token'), `${adminToken}\n`);
    const definitions = join(consumer, 'definitions');
    const unprivileged = { uid: 65534, gid: 65534 };
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      for (const name of readdirSync(data)) chownSync(join(data, name), unprivileged.uid, unprivileged.gid);
      chownSync(data, unprivileged.uid, unprivileged.gid);
    }
    for (const name of readdirSync(definitions)) chmodSync(join(definitions, name), 0o444);
    chmodSync(definitions, 0o555);

    const port = await freePort();
    const [program, script, ...entryArgs] = image.entrypoint;
    const command = [script!.replace('/app', installed), ...entryArgs, ...image.cmd];
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...image.env,
      // Where the image's mounts are on this machine, and the port Docker would map.
      SYNCLINE_DEFINITIONS: definitions,
      SYNCLINE_DB: join(data, 'syncline.db'),
      SYNCLINE_PORT: String(port),
      SYNCLINE_ADMIN_TOKEN_FILE: join(data, 'admin-token'),
      // The quickstart's own variables.
      CRM_DB: join(data, 'crm.sqlite'),
      ERP_DB: join(data, 'erp.sqlite'),
      CRM_WEBHOOK_SECRET: webhookSecret,
    };
    const child = spawn(program === 'node' ? process.execPath : program!, command, {
      cwd: installed,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asRoot ? unprivileged : {}),
    });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = once(child, 'exit');
    try {
      await checkRunningImage(`http://127.0.0.1:${port}`);
    } catch (error) {
      throw new Error(`${String(error)}\n--- output ---\n${output}`);
    } finally {
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0, `SIGTERM ends the process cleanly:\n${output}`);
    }
    assert.doesNotMatch(output, new RegExp(adminToken), 'the admin token is never printed');
  });

  test('the real image, where Docker runs (SYNCLINE_TEST_DOCKER=1)', {
    skip: process.env.SYNCLINE_TEST_DOCKER !== '1' && 'set SYNCLINE_TEST_DOCKER=1 where a Docker engine runs',
  }, async () => {
    const tag = `syncline-test:${manifest.version}`;
    succeeded(run('docker', ['build', '-t', tag, '.'], repoRoot), 'docker build');
    const data = join(work, 'docker-data');
    mkdirSync(data);
    chmodSync(data, 0o777);
    cpSync(join(work, 'data', 'crm.sqlite'), join(data, 'crm.sqlite'));
    cpSync(join(work, 'data', 'erp.sqlite'), join(data, 'erp.sqlite'));
    writeFileSync(join(data, 'admin-token'), `${adminToken}\n`);
    const port = await freePort();
    const name = `syncline-test-${process.pid}`;
    succeeded(
      run(
        'docker',
        [
          'run',
          '-d',
          '--rm',
          '--name',
          name,
          '--read-only',
          '-p',
          `127.0.0.1:${port}:3000`,
          '-v',
          `${join(consumer, 'definitions')}:/definitions:ro`,
          '-v',
          `${data}:/data`,
          '-e',
          'SYNCLINE_ADMIN_TOKEN_FILE=/data/admin-token',
          '-e',
          'CRM_DB=/data/crm.sqlite',
          '-e',
          'ERP_DB=/data/erp.sqlite',
          '-e',
          `CRM_WEBHOOK_SECRET=${webhookSecret}`,
          tag,
        ],
        repoRoot,
      ),
      'docker run',
    );
    try {
      await checkRunningImage(`http://127.0.0.1:${port}`);
    } finally {
      run('docker', ['stop', '--time', '20', name], repoRoot);
    }
  });
});
