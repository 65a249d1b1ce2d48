/**
 * Definition benchmarks.
 *
 * (a) Validating 1,000 generated definitions: `loadDefinitions` in process (median and p95 after
 *     one warm-up) and one cold `syncline validate` child process, next to the floor — reading the
 *     files and `yaml.parseAllDocuments`, which no loader can beat. Goal: under 1 s.
 * (b) Reload latency: from the write of a changed file to the holder's `swap` event, and to the
 *     first GET /readyz that shows the new digest. Goal: p95 under 250 ms.
 *
 * Run alone with `npx tsx test/bench/definitions.bench.ts`, or all benchmarks with `npm run bench`.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { randomUUID } from 'node:crypto';
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { loadConnectorSpecs } from '../../connectors/index.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { sha256 } from '../../runtime/http/auth.js';
import { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { defaultDebounceMs, minimumDebounceMs, watchDefinitions } from '../../definitions/watch-definitions.js';
import { parseDatabaseUrl } from '../../runtime/database/database-url.js';
import { migrate } from '../../runtime/database/migrate.js';
import { openDatabase } from '../../runtime/database/open-database.js';
import { createRuntimeMetrics } from '../../runtime/metrics/runtime-metrics.js';
import { createApp } from '../../runtime/http/create-app.js';
import { runProcess } from '../../runtime/sync/run-process.js';
import { createLogger } from '../../runtime/log.js';
import { generateDefinitions, thousand } from './generate-definitions.js';
import { median, ms, percentile, table, timed } from './stats.js';

/** The registered connectors, which the definitions are checked against. */
const connectors = await loadConnectorSpecs();

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin', 'syncline.js');
const quickstart = join(root, 'examples', 'quickstart');

/** In-process validation runs measured after the warm-up. */
const validateRuns = Number(process.env.BENCH_VALIDATE_RUNS ?? 10);
/** Edits per reload measurement on the quickstart; the 1,000-definition set gets fewer (each reload takes about a second). */
const reloadRuns = Number(process.env.BENCH_RELOAD_RUNS ?? 40);
const largeReloadRuns = Number(process.env.BENCH_LARGE_RELOAD_RUNS ?? 10);

const validateGoalMs = 1000;
const reloadGoalMs = 250;

export async function run(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'syncline-bench-'));
  try {
    const generated = join(work, 'generated');
    const files = await generateDefinitions(generated, thousand);
    const bytes = (await Promise.all(files.map((file) => stat(file)))).reduce((sum, info) => sum + info.size, 0);
    const total = Object.values(thousand).reduce((a, b) => a + b, 0);
    console.log(
      `\nValidate ${total.toLocaleString('en')} generated definitions (${thousand.systems} System with 3 objects, ${thousand.syncs} Sync, ` +
        `${thousand.webhooks} Webhook, ${thousand.flows} Flow, ${thousand.apiClients} ApiClient) in ${files.length} files, ${(bytes / 1024).toFixed(0)} KiB`,
    );
    await validateBench(generated, files);

    const small = join(work, 'quickstart');
    await copyQuickstart(small);
    console.log(
      `\nReload latency: from writeFile() of a changed file to the swap event, and to the first GET /readyz showing the new digest.` +
        `\nDebounce ${defaultDebounceMs} ms (the default; never below ${minimumDebounceMs} ms), so the floor is about ${defaultDebounceMs} ms plus one reload.`,
    );
    const rows = [
      ...(await reloadBench('quickstart (5 definitions)', small, 'syncs.yaml', reloadRuns)),
      ...(await reloadBench(`generated (${total.toLocaleString('en')})`, generated, join('syncs', 'syncs-0003.yaml'), largeReloadRuns)),
    ];
    console.log(table(['definitions', 'until', 'median', 'p95', 'runs', 'reload alone (median)', `goal: p95 < ${reloadGoalMs} ms`], rows));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function validateBench(dir: string, files: readonly string[]): Promise<void> {
  const floor = async () => {
    for (const text of await Promise.all(files.map((file) => readFile(file, 'utf8')))) parseAllDocuments(text);
  };
  const validate = async () => {
    const result = await loadDefinitions([dir], { connectors });
    if (!result.ok) throw new Error(`the generated definitions are invalid: ${JSON.stringify(result.problems.slice(0, 3))}`);
  };

  const first = await timed(validate);
  await floor();
  const floorTimes: number[] = [];
  const validateTimes: number[] = [];
  const unchangedTimes: number[] = [];
  // Interleaved, so that a noisy moment of the machine hits all alike. Each fresh run sees new
  // webhook schemas (as after an edit); the unchanged run re-reads the same files, as a hot reload
  // of an untouched file does, and reuses the compiled schemas.
  for (let i = 0; i < validateRuns; i++) {
    await generateDefinitions(dir, thousand, ` (run ${i})`);
    floorTimes.push(await timed(floor));
    validateTimes.push(await timed(validate));
    unchangedTimes.push(await timed(validate));
  }

  const cli = cliWallTime(['validate', dir]);
  const startup = cliWallTime(['--help']);
  const goal = (value: number) => (value < validateGoalMs ? 'met' : 'NOT met');
  const ratio = median(validateTimes) / median(floorTimes);
  console.log(
    table(
      ['', 'median', 'p95', 'runs', '× floor', `goal: < ${validateGoalMs / 1000} s`],
      [
        ['read + parseAllDocuments (the floor)', ms(median(floorTimes)), ms(percentile(floorTimes, 95)), String(validateRuns), '1.0', ''],
        [
          'loadDefinitions, in process, new content',
          ms(median(validateTimes)),
          ms(percentile(validateTimes, 95)),
          String(validateRuns),
          ratio.toFixed(1),
          goal(percentile(validateTimes, 95)),
        ],
        [
          'loadDefinitions, in process, unchanged files',
          ms(median(unchangedTimes)),
          ms(percentile(unchangedTimes, 95)),
          String(validateRuns),
          (median(unchangedTimes) / median(floorTimes)).toFixed(1),
          goal(percentile(unchangedTimes, 95)),
        ],
        ['loadDefinitions, first call in the process', ms(first), '', '1', (first / median(floorTimes)).toFixed(1), goal(first)],
        ['syncline validate DIR, cold CLI (wall)', ms(cli), '', '1', (cli / median(floorTimes)).toFixed(1), goal(cli)],
        ['  of which: syncline --help (start-up alone)', ms(startup), '', '1', '', ''],
      ],
    ),
  );
}

/** Wall time of one run of the CLI in a fresh process; a failed run ends the benchmark. */
function cliWallTime(args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`syncline ${args.join(' ')} exited ${result.status}: ${result.stdout}${result.stderr}`);
  return elapsed;
}

async function copyQuickstart(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of await readdir(quickstart)) {
    if (name.endsWith('.yaml')) await copyFile(join(quickstart, name), join(dir, name));
  }
}

/**
 * Watches `dir` and edits `file` (relative to it) `runs` times per measurement: once waiting for
 * the swap event, once polling /readyz of a running server until it shows the new digest.
 */
async function reloadBench(label: string, dir: string, file: string, runs: number): Promise<string[][]> {
  const loaded = await loadDefinitions([dir], { connectors });
  if (!loaded.ok) throw new Error(`${label}: invalid definitions`);
  const holder = new SnapshotHolder(loaded.snapshot);
  const watcher = watchDefinitions([dir], holder, { connectors });
  const connections = new ConnectionPool({ baseDirectory: process.cwd() });
  // /readyz counts the queue, so the server needs a runtime database, as `serve` has.
  const runtimeDir = await mkdtemp(join(tmpdir(), 'syncline-bench-runtime-'));
  const db = await openDatabase(parseDatabaseUrl(`sqlite:${join(runtimeDir, 'runtime.sqlite')}`));
  await migrate(db);
  const log = createLogger('silent');
  const runner = { db, snapshot: () => holder.current, connections, log, runProcess, workerId: 'bench', leaseMs: 30_000 };
  const metrics = createRuntimeMetrics({ holder, db, log, openSystems: () => connections.systemIds().length });
  const app = createApp({
    holder,
    definitionsDir: dir,
    log,
    connections,
    adminTokenHash: sha256(randomUUID()),
    db,
    runner,
    syncTimeLimitMs: 60_000,
    metrics,
  });
  const server = app.listen(0, '127.0.0.1');
  try {
    await Promise.all([watcher.ready, once(server, 'listening')]);
    const readyz = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
    const path = join(dir, file);
    const original = await readFile(path, 'utf8');
    let edit = 0;
    const changed = () => {
      edit++;
      // A visible change: the first definition's name gets the edit number.
      return original.replace(/^name: (.*)$/m, `name: $1 (edit ${edit})`);
    };
    const loadTimes: number[] = [];

    const toSwap: number[] = [];
    for (let i = 0; i < runs; i++) {
      const swapped = nextSwap(holder);
      const started = performance.now();
      await writeFile(path, changed());
      await swapped;
      toSwap.push(performance.now() - started);
      loadTimes.push(holder.status.durationMs);
    }

    const toReadyz: number[] = [];
    for (let i = 0; i < runs; i++) {
      const before = holder.current.digest;
      const swapped = nextSwap(holder);
      const started = performance.now();
      await writeFile(path, changed());
      while (((await (await fetch(readyz)).json()) as { snapshot: { digest: string } }).snapshot.digest === before) {
        // Ask again at once: the figure is the first answer that shows the new digest.
      }
      toReadyz.push(performance.now() - started);
      await swapped;
      loadTimes.push(holder.status.durationMs);
    }

    const goal = (samples: number[]) => (percentile(samples, 95) < reloadGoalMs ? 'met' : 'NOT met');
    const row = (until: string, samples: number[]) => [
      label,
      until,
      ms(median(samples)),
      ms(percentile(samples, 95)),
      String(samples.length),
      ms(median(loadTimes)),
      goal(samples),
    ];
    return [row('swap event', toSwap), row('GET /readyz', toReadyz)];
  } finally {
    server.close();
    server.closeAllConnections();
    await watcher.close();
    await db.close();
    await rm(runtimeDir, { recursive: true, force: true });
  }
}

/** The next swap; a rejected reload means the benchmark edited something wrongly. */
function nextSwap(holder: SnapshotHolder): Promise<Snapshot> {
  return new Promise((resolvePromise, reject) => {
    const onSwap = (snapshot: Snapshot) => {
      holder.off('rejected', onRejected);
      resolvePromise(snapshot);
    };
    const onRejected = (problems: readonly unknown[]) => {
      holder.off('swap', onSwap);
      reject(new Error(`reload rejected: ${JSON.stringify(problems.slice(0, 3))}`));
    };
    holder.once('swap', onSwap).once('rejected', onRejected);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
