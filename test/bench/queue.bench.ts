/**
 * Queue throughput on PostgreSQL: Syncline's queue next to graphile-worker 0.17, the same number
 * of no-op items on the same server in the same run, each in a fresh database of its own.
 *
 * - Enqueue: N items, from 10 concurrent callers, while no worker runs (Syncline `enqueue`, which
 *   also sends its NOTIFY; graphile-worker `addJob`).
 * - Drain by fresh processes: 2 worker processes each, 10 items at once per process (`syncline
 *   daemon --concurrency 10`; graphile-worker `run({ concurrency: 10 })`). The clock starts when
 *   both processes of a side say they are ready and stops when no item is left; items finished
 *   during start-up are left out of the count, so start-up cost (tsx, definitions, migrations)
 *   is not measured. These processes are still compiling their hot paths (V8's optimizing
 *   compiler ran for a fifth of a Syncline daemon's time in such a drain), so this is a cold
 *   figure.
 * - Drain by warm processes: the same processes, idle and listening, then N more items committed
 *   in one transaction (Syncline `insertItem` in a transaction then its NOTIFY; graphile-worker
 *   `addJobs`), the clock started at the commit — `BENCH_QUEUE_WARM` times (default 2). This is a
 *   daemon that has run a while, as in production; the goals are judged on it.
 *
 * A Syncline no-op item is a real sync run: claim, load the sync, read its (empty) SQLite source
 * table, record statistics, complete. Items are enqueued as the API enqueues them, under the
 * sync's concurrency limit (here 200, so the limit never holds one back: what is measured is the
 * cost of a claim that enforces it; see synclineSide). A graphile-worker no-op job runs an empty
 * function. So Syncline also runs a second time as "the queue alone": the same daemon (claims,
 * buffer, heartbeats, ends, log lines, metrics) with a run that does nothing instead of the sync,
 * as graphile-worker's task does nothing — the queue's own cost, like for like; the difference
 * between the two Syncline lines is what the empty sync run costs.
 *
 * graphile-worker runs twice: as configured by default, and batched — a local queue of
 * `concurrency + 1` jobs locked per fetch and completions written together after 1 ms
 * (`preset.worker.localQueue.size`, `completeJobBatchDelay`, `failJobBatchDelay`), its fastest
 * documented set-up for many short jobs.
 * Goals: Syncline drains at ≥ 1.0× graphile-worker's default items/s, and ≥ 0.5× its batched
 * mode's; both ratios are printed for the empty sync run and for the queue alone.
 *
 * `npx tsx test/bench/queue.bench.ts`, or `npm run bench queue`. BENCH_QUEUE_ITEMS (default 5000),
 * BENCH_QUEUE_ROUNDS (default 2, alternating which side goes first), BENCH_QUEUE_WARM (default 2),
 * BENCH_POSTGRES_URL; BENCH_QUEUE_PROFILE=DIR writes a CPU profile of each Syncline worker there.
 * Beside the rates, the CPU each item cost in the warm drains (medians): of the worker processes,
 * all their threads, and of every PostgreSQL process on the machine (the server is on loopback),
 * read from /proc before and after each drain — the figure a busy machine disturbs least, and
 * the one that says which side of the wire the time goes to (Linux only; n/a elsewhere).
 * Below the medians it lists every drain's rate, since on a shared machine one side's drains can
 * differ twofold within a run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { parseDatabaseUrl } from '../../runtime/database/database-url.js';
import { migrate } from '../../runtime/database/migrate.js';
import { openDatabase } from '../../runtime/database/open-database.js';
import { enqueue, insertItem } from '../../runtime/queue/enqueue.js';
import { announceWork } from '../../runtime/queue/notify.js';
import { queueSettings } from '../../runtime/settings.js';
import { median, table } from './stats.js';

const items = Number(process.env.BENCH_QUEUE_ITEMS ?? 5000);
const rounds = Number(process.env.BENCH_QUEUE_ROUNDS ?? 2);
const warmRounds = Number(process.env.BENCH_QUEUE_WARM ?? 2);
/** Where each Syncline worker writes its CPU profile (node --cpu-prof), when set. */
const profileDirectory = process.env.BENCH_QUEUE_PROFILE;
const serverUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const processes = 2;
const concurrency = 10;
const callers = 10;
const goalRatio = 1.0;
const batchedGoalRatio = 0.5;
const root = resolve(import.meta.dirname, '../..');

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs `count` calls of `call` from `callers` concurrent loops; answers the elapsed ms. */
async function concurrently(count: number, call: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < count) {
        next += 1;
        await call();
      }
    }),
  );
  return performance.now() - started;
}

export interface Side {
  name: string;
  enqueue(count: number): Promise<number>;
  /** Adds `count` items in one transaction, so they become due together at its commit. */
  enqueueAtOnce(count: number): Promise<void>;
  /** Items not yet finished. */
  remaining(): Promise<number>;
  /** Whether any item is not yet finished: what the clock polls, so it stops at the first one found. */
  anyLeft(): Promise<boolean>;
  /** Spawns one worker process; resolves once it says it is ready. */
  startWorker(): Promise<ChildProcess>;
  close(): Promise<void>;
}

/**
 * Resolves when a line of the child's standard output passes `ready`. Later output is read and
 * dropped unparsed: the workers log every item, and splitting those lines here would take the
 * machine's time from the workers being measured.
 */
function whenReady(child: ChildProcess, ready: (line: string) => boolean, name: string): Promise<ChildProcess> {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-1500)));
  return new Promise((resolveChild, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (!ready(line)) return;
      lines.close();
      child.stdout!.resume();
      resolveChild(child);
    });
    child.once('exit', (code) => reject(new Error(`${name} worker exited (${code}) before it was ready: ${stderr}`)));
  });
}

async function exists(knex: Knex, sql: string): Promise<boolean> {
  const result = (await knex.raw(sql)) as { rows: Array<{ found: boolean }> };
  return result.rows[0]!.found;
}

async function countRows(knex: Knex, sql: string): Promise<number> {
  const result = (await knex.raw(sql)) as { rows: Array<{ n: string }> };
  return Number(result.rows[0]!.n);
}

/**
 * Syncline with the no-op sync in `folder`, its concurrency limit twice what the daemons can hold
 * at once, so the limit never holds one back: each daemon holds up to `concurrency` running items
 * and its buffer (SYNCLINE_PREFETCH, by default four per slot, settings.ts), a
 * buffered item takes its place under the limit like a running one, and so does an item whose run
 * is over while its end is being recorded. What is measured is the cost of a claim that enforces
 * the limit, not the limit.
 */
export async function synclineSide(url: string, folder: string, workers = processes, runs: 'sync' | 'nothing' = 'sync'): Promise<Side> {
  // The daemons' own reading of SYNCLINE_PREFETCH, or its default.
  const { prefetch } = queueSettings({ concurrency: String(concurrency) });
  const limit = 2 * workers * (concurrency + prefetch);
  const noopConcurrency = { key: 'process:noop', limit, onLimit: 'wait' } as const;
  // As the API enqueues a sync's item: its attempts are the sync's retries (by default 3) + 1.
  const noop = { processId: 'noop', startType: 'manual', concurrency: noopConcurrency, maxAttempts: 4 } as const;
  writeFileSync(
    join(folder, 'noop.yaml'),
    `kind: System
id: bench
connector: sql
connection: { client: sqlite3, filename: ${JSON.stringify(join(folder, 'noop.sqlite'))} }
objects:
  Nothing:
    table: nothing
    key: [id]
    fields:
      id: { type: Integer }
---
kind: Sync
id: noop
source: { system: bench, object: Nothing }
target: { system: bench, object: Nothing }
mapping: '{ "id": id }'
concurrency: { limit: ${limit} }
`,
  );
  const sqlite = knexFactory({ client: 'sqlite3', connection: { filename: join(folder, 'noop.sqlite') }, useNullAsDefault: true });
  await sqlite.schema.createTable('nothing', (t) => t.integer('id').primary());
  await sqlite.destroy();
  const db = await openDatabase(parseDatabaseUrl(url), { poolSize: callers });
  await migrate(db);
  return {
    name: runs === 'sync' ? 'Syncline' : 'Syncline, the queue alone',
    enqueue: (count) => concurrently(count, () => enqueue(db, noop)),
    async enqueueAtOnce(count) {
      await db.knex.transaction(async (trx) => {
        const now = new Date();
        for (let i = 0; i < count; i += 1) await insertItem(db, trx, noop, now);
      });
      await announceWork(db);
    },
    // Waiting and running items, each state by its own index: finished items stay in the table
    // (GetAction reads them), and reading past them every 20 ms would load the server.
    remaining: () =>
      countRows(
        db.knex,
        "SELECT (SELECT COUNT(*) FROM queue_items WHERE status = 'Pending') + (SELECT COUNT(*) FROM queue_items WHERE status = 'InProgress') AS n",
      ),
    anyLeft: () =>
      exists(
        db.knex,
        "SELECT EXISTS (SELECT 1 FROM queue_items WHERE status = 'Pending') OR EXISTS (SELECT 1 FROM queue_items WHERE status = 'InProgress') AS found",
      ),
    startWorker() {
      const command =
        runs === 'sync'
          ? [join(root, 'bin', 'syncline.js'), 'daemon', '--definitions', folder, '--db', url, '--concurrency', String(concurrency)]
          : ['--import', 'tsx', import.meta.filename, '--syncline-queue', url, folder];
      const child = spawn(
        process.execPath,
        [...(profileDirectory === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`]), ...command],
        {
          cwd: root,
          env: { ...process.env, SYNCLINE_LOG_LEVEL: 'info', SYNCLINE_POLL_INTERVAL: '1s' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      // The daemon's first log line about itself comes once it is about to claim.
      return whenReady(child, (line) => /daemon/i.test(line) && /start/i.test(line), 'Syncline');
    },
    close: () => db.close(),
  };
}

async function graphileSide(url: string, batched: boolean): Promise<Side> {
  const { makeWorkerUtils } = await import('graphile-worker');
  const utils = await makeWorkerUtils({ connectionString: url });
  await utils.migrate();
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
  return {
    name: batched ? 'graphile-worker 0.17 batched' : 'graphile-worker 0.17',
    enqueue: (count) => concurrently(count, () => utils.addJob('noop', {})),
    async enqueueAtOnce(count) {
      await utils.addJobs(Array.from({ length: count }, () => ({ identifier: 'noop', payload: {} })));
    },
    remaining: () => countRows(knex, 'SELECT COUNT(*) AS n FROM graphile_worker._private_jobs'),
    anyLeft: () => exists(knex, 'SELECT EXISTS (SELECT 1 FROM graphile_worker._private_jobs) AS found'),
    startWorker() {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', import.meta.filename, '--graphile-worker', url, batched ? 'batched' : 'default'],
        {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      return whenReady(child, (line) => line === 'ready', 'graphile-worker');
    },
    async close() {
      await utils.release();
      await knex.destroy();
    },
  };
}

/** The graphile-worker process: a pool of `concurrency` running the no-op task until SIGTERM. */
async function graphileWorker(url: string, batched: boolean): Promise<void> {
  const { run, Logger } = await import('graphile-worker');
  // Silent, as the Syncline daemons' logs go nowhere either.
  const silent = new Logger(() => () => {});
  const runner = await run({
    connectionString: url,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    logger: silent,
    taskList: { noop: async () => {} },
    ...(batched ? { preset: { worker: { localQueue: { size: concurrency + 1 }, completeJobBatchDelay: 1, failJobBatchDelay: 1 } } } : {}),
  });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void runner.stop().then(() => process.exit(0)));
  await runner.promise;
}

/**
 * `syncline daemon`, its run of an item replaced by one that does nothing: the queue alone. The
 * runtime is opened and the workers started as daemon-command.ts does, with the same settings and
 * log; only runProcess differs, as graphile-worker's no-op task does.
 */
async function synclineQueueWorker(url: string, folder: string): Promise<void> {
  const { openRuntime } = await import('../../runtime/cli/open-runtime.js');
  const { startQueueWorkers } = await import('../../runtime/daemon/queue-workers.js');
  const { createLogger } = await import('../../runtime/log.js');
  const { noStatistics } = await import('../../runtime/queue/queue-item.js');
  const queue = queueSettings({ db: url, concurrency: String(concurrency) });
  const runtime = await openRuntime(folder, queue, createLogger(), 'not starting the daemon');
  if (typeof runtime === 'number') throw new Error(`the runtime did not open (exit code ${runtime})`);
  const runNothing = async () => ({ status: 'Complete' as const, statistics: { ...noStatistics }, errors: [], retryable: false });
  const workers = await startQueueWorkers({ ...runtime.runner('daemon'), runProcess: runNothing }, runtime.holder, queue, {
    command: 'daemon',
    version: 'bench',
  });
  await new Promise((resolveStop) => process.once('SIGTERM', resolveStop));
  await workers.stop();
  await runtime.close();
}

interface Drain {
  drainMs: number;
  drained: number;
  /** CPU time the workers and the database server spent on the drain, in ms (Linux; undefined elsewhere). */
  cpu?: { workersMs: number; serverMs: number };
}

const clockTicksPerSecond = 100;

/** User + system CPU of a process so far, in ms, from /proc (undefined where there is none, or it has exited). */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
  } catch {
    return undefined;
  }
}

/** The CPU ms of every PostgreSQL process on this machine: the server is on loopback, so its backends are here. */
function serverCpuMs(): number | undefined {
  let total: number | undefined;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let name: string;
      try {
        name = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      if (name !== 'postgres') continue;
      total = (total ?? 0) + (processCpuMs(Number(entry)) ?? 0);
    }
  } catch {
    return undefined;
  }
  return total;
}

/** Reads the CPU of `workers` and the server now; the returned function gives what each spent since. */
function cpuSince(workers: readonly ChildProcess[]): () => Drain['cpu'] {
  const workersAt = () =>
    workers.reduce<number | undefined>((sum, worker) => {
      const ms = worker.pid === undefined ? undefined : processCpuMs(worker.pid);
      return sum === undefined || ms === undefined ? undefined : sum + ms;
    }, 0);
  const before = { workers: workersAt(), server: serverCpuMs() };
  return () => {
    const after = { workers: workersAt(), server: serverCpuMs() };
    if (before.workers === undefined || before.server === undefined || after.workers === undefined || after.server === undefined)
      return undefined;
    return { workersMs: after.workers - before.workers, serverMs: after.server - before.server };
  };
}

interface RoundResult {
  enqueueMs: number;
  /** Fresh processes, started after the enqueue. */
  cold: Drain;
  /** The same processes again, idle, then items committed at once. */
  warm: Drain[];
}

/** Waits until no item is left; answers the time since `startedAt`. */
async function drained(side: Side, startedAt: number): Promise<number> {
  while (await side.anyLeft()) await sleep(20);
  return performance.now() - startedAt;
}

async function measure(side: Side): Promise<RoundResult> {
  const enqueueMs = await side.enqueue(items);
  const workers = await Promise.all(Array.from({ length: processes }, () => side.startWorker()));
  try {
    const startedAt = performance.now();
    const before = await side.remaining();
    const cold = { drained: before, drainMs: await drained(side, startedAt) };
    const warm: Drain[] = [];
    for (let round = 0; round < warmRounds; round += 1) {
      await side.enqueueAtOnce(items);
      const cpu = cpuSince(workers);
      const drainMs = await drained(side, performance.now());
      warm.push({ drained: items, drainMs, cpu: cpu() });
    }
    return { enqueueMs, cold, warm };
  } finally {
    await stopWorkers(workers);
  }
}

/** Stops worker processes as an operator would (SIGTERM) and waits until they have exited. */
export async function stopWorkers(workers: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(async (worker) => {
      const exited = once(worker, 'exit');
      worker.kill('SIGTERM');
      await exited;
    }),
  );
}

async function main(): Promise<void> {
  const server = knexFactory({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  const names = {
    syncline: `syncline_bench_${randomBytes(4).toString('hex')}`,
    queueAlone: `syncline_queue_bench_${randomBytes(4).toString('hex')}`,
    graphile: `graphile_bench_${randomBytes(4).toString('hex')}`,
    batched: `graphile_batched_bench_${randomBytes(4).toString('hex')}`,
  };
  const folder = mkdtempSync(join(tmpdir(), 'syncline-bench-queue-'));
  /** A definitions folder of its own per Syncline side: each loads every file below its folder. */
  const subfolder = (name: string): string => {
    mkdirSync(join(folder, name));
    return join(folder, name);
  };
  try {
    for (const name of Object.values(names)) await server.raw('CREATE DATABASE ??', [name]);
    const sides = [
      await synclineSide(withDatabase(serverUrl, names.syncline), subfolder('sync')),
      await synclineSide(withDatabase(serverUrl, names.queueAlone), subfolder('queue-alone'), processes, 'nothing'),
      await graphileSide(withDatabase(serverUrl, names.graphile), false),
      await graphileSide(withDatabase(serverUrl, names.batched), true),
    ];
    const results = new Map<string, RoundResult[]>(sides.map((side) => [side.name, []]));
    try {
      for (let round = 0; round < rounds; round += 1) {
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) results.get(side.name)!.push(await measure(side));
      }
    } finally {
      await Promise.all(sides.map((side) => side.close()));
    }
    const rate = (drain: Drain) => drain.drained / (drain.drainMs / 1000);
    const cpuPerItem = (list: RoundResult[], part: 'workersMs' | 'serverMs'): number | undefined => {
      const drains = list.flatMap((r) => r.warm);
      if (drains.some((drain) => drain.cpu === undefined)) return undefined;
      return median(drains.map((drain) => (drain.cpu![part] * 1000) / drain.drained));
    };
    const µs = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(0));
    const summary = sides.map((side) => {
      const list = results.get(side.name)!;
      return {
        name: side.name,
        enqueuePerSecond: median(list.map((r) => items / (r.enqueueMs / 1000))),
        coldPerSecond: median(list.map((r) => rate(r.cold))),
        warmPerSecond: median(list.flatMap((r) => r.warm.map(rate))),
        // CPU per item in the warm drains: the figure a shared machine disturbs least.
        workersCpuPerItem: cpuPerItem(list, 'workersMs'),
        serverCpuPerItem: cpuPerItem(list, 'serverMs'),
      };
    });
    type Summary = (typeof summary)[number];
    const [syncline, queueAlone, graphile, batched] = summary as [Summary, Summary, Summary, Summary];
    console.log(
      `\n${items} no-op items per round, ${rounds} rounds of a cold drain and ${warmRounds} warm ones; enqueue from ${callers} concurrent callers; drain by ${processes} processes × ${concurrency} at once; PostgreSQL ${new URL(serverUrl).host}\n`,
    );
    console.log(
      table(
        [
          'queue',
          'enqueue items/s',
          'drain items/s, fresh processes',
          'drain items/s, warm processes',
          'CPU µs/item, warm: workers',
          'server',
        ],
        summary.map((s) => [
          s.name,
          s.enqueuePerSecond.toFixed(0),
          s.coldPerSecond.toFixed(0),
          s.warmPerSecond.toFixed(0),
          µs(s.workersCpuPerItem),
          µs(s.serverCpuPerItem),
        ]),
      ),
    );
    // The medians hide how far one side's drains spread on a shared machine; each is listed.
    console.log('\nEvery drain, items/s, in the order run (per round: fresh processes, then warm ones):');
    const nameWidth = Math.max(...sides.map((side) => side.name.length));
    for (const side of sides) {
      const drains = results.get(side.name)!.map((r) => [r.cold, ...r.warm].map((drain) => rate(drain).toFixed(0)).join(' '));
      console.log(`${side.name.padEnd(nameWidth)}  ${drains.join(' | ')}`);
    }
    const verdict = (ratio: number, goal: number) => `${ratio.toFixed(2)}× (goal ≥ ${goal}×: ${ratio >= goal ? 'met' : 'NOT met'})`;
    console.log(
      `\nSyncline / graphile-worker, warm: drain ${verdict(syncline.warmPerSecond / graphile.warmPerSecond, goalRatio)}; fresh processes ${(syncline.coldPerSecond / graphile.coldPerSecond).toFixed(2)}×; enqueue ${(syncline.enqueuePerSecond / graphile.enqueuePerSecond).toFixed(2)}× (medians of the rounds)`,
    );
    console.log(
      `Syncline / graphile-worker batched, warm: drain ${verdict(syncline.warmPerSecond / batched.warmPerSecond, batchedGoalRatio)}; fresh processes ${(syncline.coldPerSecond / batched.coldPerSecond).toFixed(2)}×`,
    );
    console.log(
      `The queue alone / graphile-worker, warm: drain ${verdict(queueAlone.warmPerSecond / graphile.warmPerSecond, goalRatio)}; / batched ${verdict(queueAlone.warmPerSecond / batched.warmPerSecond, batchedGoalRatio)}`,
    );
    console.log(
      `The empty sync run takes the drain from ${queueAlone.warmPerSecond.toFixed(0)} to ${syncline.warmPerSecond.toFixed(0)} items/s (${(syncline.warmPerSecond / queueAlone.warmPerSecond).toFixed(2)}×)`,
    );
  } finally {
    for (const name of Object.values(names)) await server.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]).catch(() => {});
    await server.destroy();
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--graphile-worker') await graphileWorker(process.argv[3]!, process.argv[4] === 'batched');
else if (process.argv[2] === '--syncline-queue') await synclineQueueWorker(process.argv[3]!, process.argv[4]!);
else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
