/**
 * A PostgreSQL cluster of a test's own, for tests that stop the database under a running process:
 * the machine's shared server is never stopped. `initdb` in a temporary folder, run as the
 * `postgres` user (PostgreSQL refuses to run as root), listening on a free port of 127.0.0.1 with
 * trust authentication; `stop()` and `start()` as an operator would (`pg_ctl -m fast`), and
 * `destroy()` removes it all.
 *
 * It needs the server binaries (SYNCLINE_TEST_PG_BIN, default /usr/lib/postgresql/15/bin) and,
 * when the tests run as root, `runuser` to become `postgres`. `privatePostgresUnavailable()` says
 * why a cluster cannot be made here; the caller then skips or fails as databases.ts does (outside
 * CI one line and a skip, with CI=true a failure).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = process.env.SYNCLINE_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** Stops the server (fast shutdown: sessions are ended) and waits until it is down. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it if it runs and removes its files. */
  destroy(): Promise<void>;
}

/** Why no private cluster can be made here; undefined when one can. */
export async function privatePostgresUnavailable(): Promise<string | undefined> {
  if (!existsSync(join(bin, 'initdb')) || !existsSync(join(bin, 'pg_ctl')))
    return `no PostgreSQL server binaries in ${bin} (set SYNCLINE_TEST_PG_BIN)`;
  if (process.getuid?.() === 0) {
    try {
      await run('runuser', ['-u', 'postgres', '--', 'true']);
    } catch {
      return 'running as root, but `runuser -u postgres` does not work (PostgreSQL refuses to run as root)';
    }
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs a server binary as the postgres user (as ourselves when we are not root). */
async function asPostgres(program: string, args: string[]): Promise<void> {
  const command = join(bin, program);
  if (process.getuid?.() === 0) await run('runuser', ['-u', 'postgres', '--', command, ...args]);
  else await run(command, args);
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'syncline-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
  await chmod(dir, 0o700);
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  // No durability needed for a test cluster; the socket lives in the test's folder.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  let running = false;
  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
      running = true;
    },
    async stop() {
      await asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    async destroy() {
      if (running) await asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      running = false;
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
