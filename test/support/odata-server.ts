/**
 * A real OData v4 service for the tests: SAP CAP (`@sap/cds` with `@cap-js/sqlite`, an in-memory
 * SQLite database) serving the conformance CRM (test/fixtures/odata-crm) in a child process on a
 * free port of 127.0.0.1. The project is copied to a temporary directory with a package.json of the
 * test's settings (mocked users for basic auth, extra CDS, CSV data), its `node_modules` pointing at
 * ours; `cds serve all --in-memory --port 0` starts it and the port is read from its log line.
 *
 * `describeWithODataServer` starts one per suite and stops it after, and never leaves a child
 * behind (the child is killed when this process exits). Outside CI, a machine that cannot run CAP
 * (`odataServerUnavailable`, or a server that does not start) gets one line on standard error and
 * a skipped suite; with CI=true it is a failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';

const root = resolve(import.meta.dirname, '../..');
const project = join(root, 'test', 'fixtures', 'odata-crm');
const require = createRequire(join(root, 'package.json'));

export interface ODataServerOptions {
  /** Mocked users (CAP's `auth: mocked`): name → password. With users, the service requires a signed-in user. */
  users?: Record<string, string>;
  /** More files of the CAP project: path → text (e.g. `db/data/crm-Customers.csv`, `srv/more.cds`). */
  files?: Record<string, string>;
  /** Environment of the child. */
  env?: Record<string, string>;
  /** Most entities the service sends in one answer (server-driven paging); default 25. */
  pageLimit?: number;
}

export interface ODataServer {
  /** The service root, ending in `/`: `http://127.0.0.1:PORT/odata/v4/crm/`. */
  url: string;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** The child's output so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Why CAP cannot run here; undefined when it can. */
export async function odataServerUnavailable(): Promise<string | undefined> {
  try {
    require.resolve('@sap/cds/bin/serve.js');
    require.resolve('@cap-js/sqlite');
    require('better-sqlite3');
    return undefined;
  } catch (error) {
    return `SAP CAP cannot run here (${(error as Error).message.split('\n')[0]}); npm install builds it`;
  }
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function packageJson(options: ODataServerOptions): string {
  const requires: Record<string, unknown> = { db: { kind: 'sqlite', credentials: { url: ':memory:' } } };
  if (options.users !== undefined) {
    requires.auth = {
      kind: 'mocked',
      users: Object.fromEntries(Object.entries(options.users).map(([name, password]) => [name, { password }])),
    };
  }
  return JSON.stringify({ name: 'syncline-odata-test', private: true, cds: { requires } }, null, 2);
}

/** Starts CAP on the CRM model; rejects with its output when it does not come up within 30 s. */
export async function startODataServer(options: ODataServerOptions = {}): Promise<ODataServer> {
  const dir = await mkdtemp(join(tmpdir(), 'syncline-odata-'));
  await cp(project, dir, { recursive: true });
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'package.json'), packageJson(options));
  if (options.pageLimit !== undefined) {
    const service = join(dir, 'srv', 'service.cds');
    const text = await readFile(service, 'utf8');
    await writeFile(
      service,
      text.replace(/@cds\.query\.limit: \{[^}]*\}/, `@cds.query.limit: { default: ${options.pageLimit}, max: ${options.pageLimit} }`),
    );
  }
  if (options.users !== undefined)
    await writeFile(
      join(dir, 'srv', 'auth.cds'),
      "using CrmService from './service';\nannotate CrmService with @requires: 'authenticated-user';\n",
    );
  for (const [path, text] of Object.entries(options.files ?? {})) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const child = spawn(process.execPath, [require.resolve('@sap/cds/bin/serve.js'), 'all', '--in-memory', '--port', '0'], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'test', CDS_ENV: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString('utf8'));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = once(child, 'exit');
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    running.delete(child);
    await rm(dir, { recursive: true, force: true });
  };
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`SAP CAP did not start within 30 s:\n${output}`)), 30_000);
    const look = () => {
      const found = /server listening on \{ url: 'http:\/\/localhost:(\d+)' \}/.exec(output);
      if (found === null) return;
      clearTimeout(timer);
      resolvePort(Number(found[1]));
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const last = output.trim().split('\n').at(-1) ?? '';
      reject(new Error(`SAP CAP exited with ${code} before listening (${last.trim()})\n${output}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const origin = `http://127.0.0.1:${port}`;
  return { url: `${origin}/odata/v4/crm/`, origin, output: () => output, stop };
}

/**
 * Registers `body` inside `describe(title)` with a CAP server, started now (so that a machine where
 * it cannot start is known before any test is registered) and stopped after the suite's tests.
 * `server()` is valid inside the tests and hooks.
 */
export async function describeWithODataServer(
  title: string,
  options: ODataServerOptions,
  body: (server: () => ODataServer) => void,
): Promise<void> {
  let unavailable = await odataServerUnavailable();
  let server: ODataServer | undefined;
  if (unavailable === undefined) {
    try {
      server = await startODataServer(options);
    } catch (error) {
      unavailable = (error as Error).message;
    }
  }
  if (server === undefined) {
    const why = unavailable ?? 'SAP CAP did not start';
    if (process.env.CI === 'true') {
      describe(title, () => test('SAP CAP runs here (required in CI)', () => assert.fail(`SAP CAP is required in CI: ${why}`)));
    } else {
      process.stderr.write(`skipping ${title}: ${why.split('\n')[0]}\n`);
      describe(title, { skip: why.split('\n')[0] }, () => {});
    }
    return;
  }
  const started = server;
  describe(title, () => {
    after(() => started.stop());
    body(() => started);
  });
}
