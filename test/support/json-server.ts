/**
 * A real REST server for the http connector's tests: json-server 0.17 in a child process
 * (json-server-child.js) on a free loopback port, serving a db.json the test writes. Each suite
 * gets its own server and data. The child ends with the suite, and with the test process however
 * that ends (its standard input closes).
 *
 * A server that cannot start: outside CI one line "skipping json-server tests: <reason>" on stderr
 * and the suite is skipped; with CI=true the suite fails instead.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';

const childScript = resolve(import.meta.dirname, 'json-server-child.js');
const jsonServerBin = resolve(import.meta.dirname, '../../node_modules/json-server/lib/cli/bin.js');
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill();
});

export interface JsonServerOptions {
  /** Collections whose records json-server finds by another property than `id`. */
  ids?: Record<string, string>;
}

export interface JsonServer {
  /** http://127.0.0.1:port */
  base: string;
  /** GET of a path, parsed (the test's own look at the data, not through the connector). */
  get(path: string): Promise<any>;
  stop(): Promise<void>;
}

/** The line of a child's standard error that says what went wrong. */
function reasonOf(stderr: string): string {
  const lines = stderr.trim().split('\n');
  return (lines.find((line) => /^\s*[A-Za-z]*Error: /.test(line)) ?? lines.at(-1) ?? '').trim() || 'no output';
}

/** Starts json-server over `db`; rejects with the reason when it cannot. */
export async function startJsonServer(db: Record<string, unknown>, options: JsonServerOptions = {}): Promise<JsonServer> {
  const directory = mkdtempSync(join(tmpdir(), 'syncline-json-server-'));
  const file = join(directory, 'db.json');
  writeFileSync(file, JSON.stringify(db));
  const child = spawn(process.execPath, [childScript, file, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin!.end();
      await exited;
    }
    running.delete(child);
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolvePort, reject) => {
      const timer = setTimeout(() => reject(new Error('json-server did not listen within 20 s')), 20_000);
      createInterface({ input: child.stdout! }).once('line', (line) => {
        clearTimeout(timer);
        resolvePort((JSON.parse(line) as { port: number }).port);
      });
      void exited.then(([code]) => {
        clearTimeout(timer);
        reject(new Error(`json-server exited (${String(code)}): ${reasonOf(stderr)}`));
      });
    });
    const base = `http://127.0.0.1:${port}`;
    return {
      base,
      async get(path) {
        const response = await fetch(`${base}${path}`);
        if (!response.ok) throw new Error(`GET ${path}: HTTP ${response.status}`);
        return response.json();
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A free port of 127.0.0.1 (free when asked; the caller binds it soon after). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

/**
 * json-server's own command line, as a reader runs it (`npx json-server --port N db.json`), on a
 * free port, serving `dbFile` (which it rewrites on every write: give it a copy). Resolves once
 * it answers; rejects with the reason when it does not within 20 s.
 */
export async function startJsonServerCli(dbFile: string): Promise<{ base: string; port: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [jsonServerBin, '--port', String(port), dbFile], { stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill();
      await exited;
    }
    running.delete(child);
  };
  const base = `http://localhost:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${base}/db`)).ok) return { base, port, stop };
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) break;
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  await stop();
  throw new Error(`json-server did not answer on port ${port}: ${output.trim().split('\n').slice(-3).join(' ') || 'no output'}`);
}

/**
 * Registers `body` inside `describe(title)` with a json-server over `db()` started for it and
 * stopped after it; `server()` is valid inside its tests and hooks.
 */
export async function describeWithJsonServer(
  title: string,
  db: () => Record<string, unknown>,
  options: JsonServerOptions,
  body: (server: () => JsonServer) => void,
): Promise<void> {
  let server: JsonServer;
  try {
    server = await startJsonServer(db(), options);
  } catch (error) {
    const reason = (error as Error).message;
    if (process.env.CI === 'true') {
      describe(title, () => {
        test('json-server starts (required in CI)', () => {
          throw new Error(`json-server is required in CI: ${reason}`);
        });
      });
    } else {
      process.stderr.write(`skipping json-server tests: ${reason}\n`);
      describe(title, { skip: `json-server unavailable: ${reason}` }, () => {});
    }
    return;
  }
  describe(title, () => {
    after(() => server.stop());
    body(() => server);
  });
}
