/**
 * Queue scale-out on PostgreSQL: the drain rate of no-op items with 1, 2 and 4 daemon processes
 * on one database, so an operator knows what adding workers buys. Each count drains its own
 * fresh database, after the items are enqueued and every daemon said it is ready (start-up is not
 * measured), with the same items and concurrency per process as queue.bench.ts (a no-op item is a
 * real sync run; see there). On a machine with few cores the daemons share them, so the figure
 * shows the database's side of scaling only where the cores are not the limit first.
 *
 * `npx tsx test/bench/queue-scale.bench.ts`, or `npm run bench queue-scale`. BENCH_QUEUE_ITEMS
 * (default 5000), BENCH_QUEUE_SCALE (default "1,2,4"), BENCH_POSTGRES_URL.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import knexFactory from 'knex';
import { stopWorkers, synclineSide, withDatabase } from './queue.bench.js';
import { table } from './stats.js';

const items = Number(process.env.BENCH_QUEUE_ITEMS ?? 5000);
const counts = (process.env.BENCH_QUEUE_SCALE ?? '1,2,4').split(',').map(Number);
const serverUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Drained {
  processes: number;
  itemsPerSecond: number;
}

/** Drains `items` with `processes` daemons in a fresh database; answers the rate. */
async function drainWith(server: knexFactory.Knex, processes: number): Promise<Drained> {
  const name = `syncline_scale_bench_${randomBytes(4).toString('hex')}`;
  const folder = mkdtempSync(join(tmpdir(), 'syncline-bench-queue-scale-'));
  await server.raw('CREATE DATABASE ??', [name]);
  const side = await synclineSide(withDatabase(serverUrl, name), folder, processes);
  let workers: ChildProcess[] = [];
  try {
    await side.enqueue(items);
    workers = await Promise.all(Array.from({ length: processes }, () => side.startWorker()));
    const startedAt = performance.now();
    const before = await side.remaining();
    while (await side.anyLeft()) await sleep(20);
    return { processes, itemsPerSecond: before / ((performance.now() - startedAt) / 1000) };
  } finally {
    await stopWorkers(workers);
    await side.close();
    await server.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]).catch(() => {});
    rmSync(folder, { recursive: true, force: true });
  }
}

const server = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
try {
  const results: Drained[] = [];
  for (const processes of counts) results.push(await drainWith(server, processes));
  const one = results.find((result) => result.processes === 1)?.itemsPerSecond;
  console.log(
    `\n${items} no-op items per count; each daemon runs 10 at once; PostgreSQL ${new URL(serverUrl).host}; ${cpus().length} cores\n`,
  );
  console.log(
    table(
      ['daemons', 'drain items/s', 'vs 1 daemon'],
      results.map((result) => [
        String(result.processes),
        result.itemsPerSecond.toFixed(0),
        one === undefined ? '' : `${(result.itemsPerSecond / one).toFixed(2)}×`,
      ]),
    ),
  );
} finally {
  await server.destroy();
}
