/**
 * Sync throughput: 100,000 records with a JSONata mapping and a key-match upsert, by the sync
 * engine, next to the hand-written Knex copy of sync-fixture.ts producing the same target rows, in
 * the same process — SQLite → SQLite, then PostgreSQL → PostgreSQL (fresh databases on the server
 * of the integration tests, skipped with a line when it does not answer). Per round, into fresh
 * targets: the first run creates every record, the second (after every source record changed)
 * updates every record; the engine and the
 * hand-written copy take turns going first. The figures are the medians over the rounds. Goals:
 * the engine at ≥ 0.5× the hand-written copy's records/s, and its second run (all updates) as fast
 * as its first.
 *
 * `npx tsx test/bench/sync.bench.ts`, or `npm run bench sync`. BENCH_SYNC_RECORDS changes the size,
 * BENCH_SYNC_ROUNDS the rounds (3), BENCH_SYNC_DATABASES the databases (sqlite,postgres),
 * BENCH_POSTGRES_URL the server (postgres://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import type { RunOutcome } from '../../runtime/execution/process-run.js';
import { runProcess } from '../../runtime/sync/run-process.js';
import { median, ms, table, timed } from './stats.js';
import {
  changeSource,
  createSource,
  createTarget,
  handWrittenCopy,
  postgresStore,
  sqliteStore,
  syncEnvironment,
  syncId,
  targetDigest,
  type Store,
} from './sync-fixture.js';

const records = Number(process.env.BENCH_SYNC_RECORDS ?? 100_000);
const rounds = Number(process.env.BENCH_SYNC_ROUNDS ?? 3);
const databases = new Set((process.env.BENCH_SYNC_DATABASES ?? 'sqlite,postgres').split(',').map((name) => name.trim()));
const postgresUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const goalRatio = 0.5;
const runs = ['first run (creates)', 'second run (updates)'] as const;

/** Where the benchmark makes its databases: new ones each time, dropped by `dispose`. */
interface Place {
  label: string;
  store(name: string): Promise<Store>;
  dispose(): Promise<void>;
}

function sqlitePlace(): Place {
  const folder = mkdtempSync(join(tmpdir(), 'syncline-bench-sync-'));
  return {
    label: 'SQLite → SQLite',
    store: async (name) => sqliteStore(join(folder, `${name}-${randomBytes(4).toString('hex')}.sqlite`)),
    dispose: async () => rmSync(folder, { recursive: true, force: true }),
  };
}

/** Fresh databases on the PostgreSQL server, as test/support/databases.ts makes them; undefined when it does not answer. */
async function postgresPlace(): Promise<Place | undefined> {
  const server = knexFactory({
    client: 'pg',
    connection: { connectionString: postgresUrl, connectionTimeoutMillis: 3000 },
    pool: { min: 0, max: 1 },
  });
  try {
    await server.raw('SELECT 1');
  } catch (error) {
    console.log(`\nskipping PostgreSQL → PostgreSQL: ${new URL(postgresUrl).host} does not answer (${(error as Error).message})`);
    await server.destroy();
    return undefined;
  }
  const created: string[] = [];
  return {
    label: 'PostgreSQL → PostgreSQL',
    async store() {
      const name = `syncline_bench_${randomBytes(6).toString('hex')}`;
      await server.raw('CREATE DATABASE ??', [name]);
      created.push(name);
      const url = new URL(postgresUrl);
      url.pathname = `/${name}`;
      return postgresStore(url.toString());
    },
    async dispose() {
      try {
        for (const name of created) await server.raw('DROP DATABASE ?? WITH (FORCE)', [name]);
      } finally {
        await server.destroy();
      }
    },
  };
}

/** One round: fresh targets, the first and the second run of both; the milliseconds of each. */
async function round(place: Place, source: Store, handFirst: boolean): Promise<Array<{ hand: number; engine: number }>> {
  const handTarget = await place.store('hand');
  const engineTarget = await place.store('engine');
  await createTarget(handTarget);
  await createTarget(engineTarget);
  const bench = await syncEnvironment({ source, target: engineTarget });
  try {
    const times: Array<{ hand: number; engine: number }> = [];
    for (const [index, label] of runs.entries()) {
      const runHand = async () => {
        let copied = 0;
        const elapsed = await timed(async () => {
          copied = await handWrittenCopy({ source, target: handTarget });
        });
        if (copied !== records) throw new Error(`the hand-written copy copied ${copied} of ${records}`);
        return elapsed;
      };
      const runEngine = async () => {
        let outcome: RunOutcome | undefined;
        const elapsed = await timed(async () => {
          outcome = await runProcess(bench.environment, { processId: syncId });
        });
        const expected = index === 0 ? { created: records, updated: 0 } : { created: 0, updated: records };
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
      // The second run updates: every source record changed since the first.
      if (index > 0) await changeSource(source);
      // Take turns going first, so neither always gets the warmer caches.
      const first = (index === 0) === handFirst ? 'hand' : 'engine';
      let hand: number;
      let engine: number;
      if (first === 'hand') {
        hand = await runHand();
        engine = await runEngine();
      } else {
        engine = await runEngine();
        hand = await runHand();
      }
      const [byHand, byEngine] = [await targetDigest(handTarget), await targetDigest(engineTarget)];
      if (byHand.digest !== byEngine.digest || byHand.rows !== records)
        throw new Error(`the targets differ after the ${label}: ${byHand.rows} rows by hand, ${byEngine.rows} by the engine`);
      times.push({ hand, engine });
    }
    return times;
  } finally {
    await bench.close();
  }
}

async function benchmark(place: Place): Promise<void> {
  const source = await place.store('people');
  await createSource(source, records);
  const samples = runs.map(() => ({ hand: [] as number[], engine: [] as number[], ratio: [] as number[] }));
  for (let r = 0; r < rounds; r += 1) {
    const times = await round(place, source, r % 2 === 0);
    for (const [index, { hand, engine }] of times.entries()) {
      samples[index]!.hand.push(hand);
      samples[index]!.engine.push(engine);
      samples[index]!.ratio.push(hand / engine);
    }
  }
  const rows = runs.map((label, index) => {
    const { hand, engine, ratio } = samples[index]!;
    return [
      label,
      ms(median(hand)),
      (records / (median(hand) / 1000)).toFixed(0),
      ms(median(engine)),
      (records / (median(engine) / 1000)).toFixed(0),
      `${median(ratio).toFixed(2)}×`,
      ratio.map((value) => value.toFixed(2)).join(' '),
    ];
  });
  console.log(
    `\n${records.toLocaleString('en')} records, ${place.label}, JSONata mapping, match on the target key; identical target rows checked after each run; medians of ${rounds} rounds\n`,
  );
  console.log(table(['run', 'hand-written', 'records/s', 'sync engine', 'records/s', 'ratio', 'per round'], rows));
  const worst = Math.min(...samples.map(({ ratio }) => median(ratio)));
  const secondOverFirst = median(samples[1]!.engine) / median(samples[0]!.engine);
  console.log(`\nengine / hand-written: worst ${worst.toFixed(2)}× (goal ≥ ${goalRatio}×: ${worst >= goalRatio ? 'met' : 'NOT met'})`);
  console.log(
    `engine second run / first run time: ${secondOverFirst.toFixed(2)} (goal ≤ 1.10, as fast: ${secondOverFirst <= 1.1 ? 'met' : 'NOT met'})`,
  );
}

for (const make of [databases.has('sqlite') ? sqlitePlace : undefined, databases.has('postgres') ? postgresPlace : undefined]) {
  const place = await make?.();
  if (place === undefined) continue;
  try {
    await benchmark(place);
  } finally {
    await place.dispose();
  }
}
