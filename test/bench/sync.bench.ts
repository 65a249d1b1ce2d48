/**
 * Sync throughput: 100,000 records SQLite → SQLite with a JSONata mapping and a key-match upsert,
 * by the sync engine, next to the hand-written Knex copy of sync-fixture.ts producing the same
 * target rows, in the same process. Twice: the first run creates every record, the second updates
 * every record. Goals: the engine at ≥ 0.5× the hand-written copy's records/s, and its second run
 * (all updates) as fast as its first.
 *
 * `npx tsx test/bench/sync.bench.ts`, or `npm run bench sync`. BENCH_SYNC_RECORDS changes the size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunOutcome } from '../../runtime/execution/process-run.js';
import { runProcess } from '../../runtime/sync/run-process.js';
import { ms, table, timed } from './stats.js';
import { createSource, createTarget, handWrittenCopy, syncEnvironment, syncId, targetDigest } from './sync-fixture.js';

const records = Number(process.env.BENCH_SYNC_RECORDS ?? 100_000);
const goalRatio = 0.5;

const folder = mkdtempSync(join(tmpdir(), 'syncline-bench-sync-'));
const files = {
  source: join(folder, 'people.sqlite'),
  handTarget: join(folder, 'hand.sqlite'),
  engineTarget: join(folder, 'engine.sqlite'),
};
try {
  await createSource(files.source, records);
  await createTarget(files.handTarget);
  await createTarget(files.engineTarget);
  const bench = await syncEnvironment({ source: files.source, target: files.engineTarget });
  try {
    const rows: string[][] = [];
    const engineTimes: number[] = [];
    for (const [round, label] of ['first run (creates)', 'second run (updates)'].entries()) {
      const runHand = async () => {
        let copied = 0;
        const elapsed = await timed(async () => {
          copied = await handWrittenCopy({ source: files.source, target: files.handTarget });
        });
        if (copied !== records) throw new Error(`the hand-written copy copied ${copied} of ${records}`);
        return elapsed;
      };
      const runEngine = async () => {
        let outcome: RunOutcome | undefined;
        const elapsed = await timed(async () => {
          outcome = await runProcess(bench.environment, { processId: syncId });
        });
        const expected = round === 0 ? { created: records, updated: 0 } : { created: 0, updated: records };
        const s = outcome!.statistics;
        if (
          outcome!.status !== 'Complete' ||
          s.read !== records ||
          s.created !== expected.created ||
          s.updated !== expected.updated ||
          s.failed !== 0
        ) {
          throw new Error(`the sync ended ${outcome!.status} with ${JSON.stringify(s)}: ${JSON.stringify(outcome!.errors.slice(0, 3))}`);
        }
        return elapsed;
      };
      // Alternate who goes first, so neither always gets the warmer page cache.
      let handMs: number;
      let engineMs: number;
      if (round === 0) {
        handMs = await runHand();
        engineMs = await runEngine();
      } else {
        engineMs = await runEngine();
        handMs = await runHand();
      }
      const [hand, engine] = [await targetDigest(files.handTarget), await targetDigest(files.engineTarget)];
      if (hand.digest !== engine.digest || hand.rows !== records)
        throw new Error(`the targets differ after the ${label}: ${hand.rows} rows by hand, ${engine.rows} by the engine`);
      engineTimes.push(engineMs);
      rows.push([
        label,
        ms(handMs),
        (records / (handMs / 1000)).toFixed(0),
        ms(engineMs),
        (records / (engineMs / 1000)).toFixed(0),
        `${(handMs / engineMs).toFixed(2)}×`,
      ]);
    }
    console.log(
      `\n${records.toLocaleString('en')} records, SQLite → SQLite, JSONata mapping, match on the target key; identical target rows checked after each run\n`,
    );
    console.log(table(['run', 'hand-written', 'records/s', 'sync engine', 'records/s', 'ratio'], rows));
    const ratios = rows.map((row) => Number.parseFloat(row[5]!));
    const worst = Math.min(...ratios);
    const secondOverFirst = engineTimes[1]! / engineTimes[0]!;
    console.log(`\nengine / hand-written: worst ${worst.toFixed(2)}× (goal ≥ ${goalRatio}×: ${worst >= goalRatio ? 'met' : 'NOT met'})`);
    console.log(
      `engine second run / first run time: ${secondOverFirst.toFixed(2)} (goal ≤ 1.10, as fast: ${secondOverFirst <= 1.1 ? 'met' : 'NOT met'})`,
    );
  } finally {
    await bench.close();
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
