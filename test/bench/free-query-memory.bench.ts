/**
 * Memory of `syncline serve` around large free queries: resident set size (VmRSS) and its peak
 * (VmHWM) of a real serve process, after start, after a 3,000,000-row query (over the default
 * limits.queryRows, so answered 422) and after a 100,000-row query (exactly the default cap, so
 * answered 200 with every row), on each reachable engine.
 *
 * `npx tsx test/bench/free-query-memory.bench.ts`, or `npm run bench free-query-memory`.
 * BENCH_SYNCLINE=/path/to/bin/syncline.js measures another checkout (e.g. one without limits).
 * Linux only: the figures come from /proc/<pid>/status.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliEnv, projectRoot } from '../support/cli-process.js';
import { databaseTargets, type Engine, type TestDatabase } from '../support/databases.js';
import { table } from './stats.js';

const bin = process.env.BENCH_SYNCLINE ?? join(projectRoot, 'bin', 'syncline.js');
const token = `bench-token-${process.pid}-0123456789abcdef`;

/** n rows of one integer column, written as the acceptance findings wrote them. */
const rows: Record<Engine, (n: number) => string> = {
  sqlite: (n) => `WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < ${n}) SELECT 1 AS id FROM r`,
  postgres: (n) => `SELECT 1 AS id FROM generate_series(1, ${n})`,
  mariadb: (n) => `SELECT 1 AS id FROM seq_1_to_${n}`,
};

async function memory(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function measure(database: TestDatabase): Promise<string[][]> {
  const dir = await mkdtemp(join(tmpdir(), 'syncline-bench-query-'));
  const { engine, connection, baseDirectory } = database;
  const target =
    engine === 'sqlite'
      ? `{ client: sqlite3, filename: ${JSON.stringify(join(baseDirectory, String(connection.filename)))} }`
      : `{ client: ${engine === 'postgres' ? 'pg' : 'mysql2'}, url: ${JSON.stringify(String(connection.url))} }`;
  await writeFile(join(dir, 'systems.yaml'), `kind: System\nid: big\nconnector: sql\nconnection: ${target}\n`);
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--definitions', dir, '--port', '0', '--db', `sqlite:${join(dir, 'runtime.sqlite')}`],
    { cwd: projectRoot, env: cliEnv({ SYNCLINE_ADMIN_TOKEN: token }), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  try {
    const base = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const match = /serving on (http:\/\/[^"\s]+)/.exec(line);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error('serve exited before listening')));
    });
    const query = async (statement: string) => {
      const started = performance.now();
      const answer = await fetch(`${base}/api/RunConnectionGetQueryData/big`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ columns: [{ Name: 'id', ColumnType: 'Integer' }], Statement: statement }),
      });
      const text = await answer.text();
      return `${answer.status}, ${(text.length / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`;
    };
    const figures: string[][] = [];
    const row = async (what: string, answer: string) => {
      const { rss, peak } = await memory(child.pid!);
      figures.push([database.label, what, answer, `${rss.toFixed(0)} MB`, `${peak.toFixed(0)} MB`]);
    };
    await query('SELECT 1 AS id');
    await row('started, one small query', '200');
    await row('after 3,000,000 rows', await query(rows[engine](3_000_000)));
    await row('after 100,000 rows', await query(rows[engine](100_000)));
    return figures;
  } finally {
    child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}

const results: string[][] = [];
for (const target of await databaseTargets()) {
  if (target.unavailable !== undefined) {
    console.log(`skipping ${target.label}: ${target.unavailable}`);
    continue;
  }
  const database = await target.create();
  try {
    results.push(...(await measure(database)));
  } finally {
    await database.drop();
  }
}
console.log(`\n${bin}\n\n${table(['engine', 'serve process', 'answer', 'RSS', 'peak RSS'], results)}`);
