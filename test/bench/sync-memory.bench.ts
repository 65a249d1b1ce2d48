/**
 * Memory: peak resident set size of a 1,000,000-record sync (SQLite → SQLite, the scenario of
 * sync-fixture.ts), measured in a child process that does nothing else, next to a child that only
 * loads the same modules and definitions (the floor). Goal: peak RSS < 256 MB — the engine streams
 * pages and never holds the source in memory.
 *
 * `npx tsx test/bench/sync-memory.bench.ts`, or `npm run bench sync-memory`.
 * BENCH_MEMORY_RECORDS changes the size.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { table } from './stats.js';
import { createSource, createTarget, syncEnvironment, syncId } from './sync-fixture.js';

const records = Number(process.env.BENCH_MEMORY_RECORDS ?? 1_000_000);
const goalMb = 256;

interface ChildReport {
  maxRssMb: number;
  seconds: number;
  statistics?: unknown;
}

/** In the child: load everything, run the sync unless `idle`, report the peak RSS. */
async function child(files: { source: string; target: string }, idle: boolean): Promise<void> {
  const { runProcess } = await import('../../runtime/sync/run-process.js');
  const bench = await syncEnvironment(files);
  const started = performance.now();
  try {
    const report: ChildReport = { maxRssMb: 0, seconds: 0 };
    if (!idle) {
      const outcome = await runProcess(bench.environment, { processId: syncId });
      if (outcome.status !== 'Complete' || outcome.statistics.read !== records)
        throw new Error(
          `the sync ended ${outcome.status}: ${JSON.stringify(outcome.statistics)} ${JSON.stringify(outcome.errors.slice(0, 3))}`,
        );
      report.statistics = outcome.statistics;
    }
    report.seconds = (performance.now() - started) / 1000;
    // resourceUsage().maxRSS is in kilobytes: the peak over the process's whole life.
    report.maxRssMb = process.resourceUsage().maxRSS / 1024;
    process.send!(report);
  } finally {
    await bench.close();
  }
}

async function measure(files: { source: string; target: string }, idle: boolean): Promise<ChildReport> {
  const worker = fork(import.meta.filename, ['--child', files.source, files.target, idle ? 'idle' : 'run'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const reports: ChildReport[] = [];
  worker.on('message', (message) => reports.push(message as ChildReport));
  const [code] = (await once(worker, 'exit')) as [number | null];
  if (code !== 0 || reports.length === 0) throw new Error(`the measuring process exited with ${String(code)}`);
  return reports[0]!;
}

if (process.argv[2] === '--child') {
  await child({ source: process.argv[3]!, target: process.argv[4]! }, process.argv[5] === 'idle');
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folder = mkdtempSync(join(tmpdir(), 'syncline-bench-memory-'));
  try {
    const files = { source: join(folder, 'people.sqlite'), target: join(folder, 'contacts.sqlite') };
    console.log(`\ncreating ${records.toLocaleString('en')} source records…`);
    await createSource(files.source, records);
    await createTarget(files.target);
    const floor = await measure(files, true);
    const run = await measure(files, false);
    console.log(
      '\n' +
        table(
          ['process', 'peak RSS', 'seconds'],
          [
            ['modules + definitions loaded, no sync (floor)', `${floor.maxRssMb.toFixed(0)} MB`, floor.seconds.toFixed(1)],
            [`sync of ${records.toLocaleString('en')} records`, `${run.maxRssMb.toFixed(0)} MB`, run.seconds.toFixed(1)],
          ],
        ),
    );
    console.log(
      `\npeak RSS ${run.maxRssMb.toFixed(0)} MB = ${(run.maxRssMb / floor.maxRssMb).toFixed(2)}× the floor; goal < ${goalMb} MB: ${run.maxRssMb < goalMb ? 'met' : 'NOT met'}; ${(records / run.seconds).toFixed(0)} records/s`,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
