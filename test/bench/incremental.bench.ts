/**
 * Incremental sync runs: a sync with a cursor (source.cursor on a change timestamp) over
 * 1,000,000 source records, SQLite → SQLite, by the sync engine. The first run reads and creates
 * everything; then 1% of the records change (a new name, a later timestamp) and the sync runs
 * again — reading only past its mark, writing the changed records; then another 1% changes and a
 * full run (the action parameter FULL_RUN=true) reads everything again, writing only the changed
 * ones (the rest are found unchanged). Goal: the repeat run with 1% changed at least 20× faster
 * than a full run. The ratios are against the first run and against the full repeat run, in the
 * same process; the statistics of every run are checked.
 *
 * The source has the index an operator should create for a DateTime cursor on SQLite:
 * `CREATE INDEX people_changed_at ON people (strftime('%Y-%m-%dT%H:%M:%fZ', changed_at))` — the
 * expression exactly as the sql connector compares and orders the column (on PostgreSQL and
 * MariaDB, an index on the column itself; docs/definitions/sync.md). A run from a mark reads by
 * that expression, then the key, so the index finds the records past the mark and keeps them in
 * page order; without it every repeat run reads the whole table.
 *
 * `npx tsx test/bench/incremental.bench.ts`, or `npm run bench incremental`. BENCH_INCREMENTAL_RECORDS
 * changes the size (1,000,000), BENCH_INCREMENTAL_CHANGED the share changed (0.01).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { loadConnectorSpecs } from '../../connectors/index.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { parseDatabaseUrl } from '../../runtime/database/database-url.js';
import { migrate } from '../../runtime/database/migrate.js';
import { openDatabase } from '../../runtime/database/open-database.js';
import type { RunEnvironment, RunOutcome } from '../../runtime/execution/process-run.js';
import type { ItemStatistics } from '../../runtime/queue/queue-item.js';
import { runProcess } from '../../runtime/sync/run-process.js';
import { ms, table, timed } from './stats.js';

const records = Number(process.env.BENCH_INCREMENTAL_RECORDS ?? 1_000_000);
const share = Number(process.env.BENCH_INCREMENTAL_CHANGED ?? 0.01);
const goal = 20;
const syncId = 'people-to-contacts';
const cities = ['Lisbon', 'Porto', 'Braga', 'Coimbra', 'Faro', 'Aveiro', 'Évora', 'Leiria'];
const base = Date.parse('2025-01-01T00:00:00.000Z');
/** Every `every`-th record changes, offset by `offset`: 1% is every 100th. */
const every = Math.max(1, Math.round(1 / share));

function sqlite(filename: string): Knex {
  return knexFactory({ client: 'sqlite3', connection: { filename }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
}

/** `people`, each with its change timestamp one second after the one before (indexed as the connector compares it). */
async function createSource(filename: string): Promise<void> {
  const knex = sqlite(filename);
  try {
    await knex.raw('PRAGMA journal_mode = WAL');
    await knex.schema.createTable('people', (table) => {
      table.integer('id').primary();
      table.string('first_name').notNullable();
      table.string('last_name').notNullable();
      table.string('email');
      table.string('city');
      table.string('changed_at').notNullable();
    });
    // The sql connector compares and orders a SQLite DateTime as canonical ISO text (SQLite keeps
    // date-times as text of any shape); an index on that expression serves the cursor's condition
    // and the order a run from a mark reads in.
    await knex.raw(`CREATE INDEX people_changed_at ON people (strftime('%Y-%m-%dT%H:%M:%fZ', changed_at))`);
    await knex.transaction(async (trx) => {
      const batch: Array<Record<string, unknown>> = [];
      for (let id = 1; id <= records; id += 1) {
        batch.push({
          id,
          first_name: `First${id}`,
          last_name: `Last${id % 977}`,
          email: `Person.${id}@Example.COM`,
          city: cities[id % cities.length],
          changed_at: new Date(base + id * 1000).toISOString(),
        });
        // Knex inserts many rows on SQLite as one compound SELECT, which SQLite caps at 500 terms.
        if (batch.length === 80 || id === records) await trx('people').insert(batch.splice(0));
      }
    });
  } finally {
    await knex.destroy();
  }
}

/** Changes every `every`-th person from `offset` on: a new first name, stamped after every earlier change. Answers how many. */
async function changeSome(filename: string, offset: number, stamp: number): Promise<number> {
  const knex = sqlite(filename);
  try {
    return await knex('people')
      .whereRaw('id % ? = ?', [every, offset])
      .update({ first_name: knex.raw(`'Changed' || id || ?`, [String(stamp)]), changed_at: new Date(stamp).toISOString() });
  } finally {
    await knex.destroy();
  }
}

async function createTarget(filename: string): Promise<void> {
  const knex = sqlite(filename);
  try {
    await knex.raw('PRAGMA journal_mode = WAL');
    await knex.schema.createTable('contacts', (table) => {
      table.string('ContactNumber').primary();
      table.string('FullName').notNullable();
      table.string('Email');
      table.string('City');
    });
  } finally {
    await knex.destroy();
  }
}

function definitions(source: string, target: string): string {
  return `kind: System
id: people
connector: sql
connection: { client: sqlite3, filename: ${JSON.stringify(source)} }
objects:
  Person:
    table: people
    key: [id]
    fields:
      id: { type: Integer }
      first_name: { type: String }
      last_name: { type: String }
      email: { type: String }
      city: { type: String }
      changed_at: { type: DateTime }
---
kind: System
id: contacts
connector: sql
connection: { client: sqlite3, filename: ${JSON.stringify(target)} }
objects:
  Contact:
    table: contacts
    key: [ContactNumber]
    fields:
      ContactNumber: { type: String, required: true }
      FullName: { type: String, required: true }
      Email: { type: String }
      City: { type: String }
---
kind: Sync
id: ${syncId}
source: { system: people, object: Person, cursor: { field: changed_at, lookBack: 1m } }
target: { system: contacts, object: Contact }
mapping: |
  { "ContactNumber": "P-" & $string(id), "FullName": first_name & " " & last_name, "Email": $lowercase(email), "City": city }
match: { where: "ContactNumber = #ContactNumber#" }
batchSize: 1000
timeout: 2h
`;
}

const folder = mkdtempSync(join(tmpdir(), 'syncline-bench-incremental-'));
const source = join(folder, 'people.sqlite');
const target = join(folder, 'contacts.sqlite');
await createSource(source);
await createTarget(target);
writeFileSync(join(folder, 'benchmark.yaml'), definitions(source, target));
const loaded = await loadDefinitions([folder], { connectors: await loadConnectorSpecs() });
if (!loaded.ok) throw new Error(`benchmark definitions do not load: ${JSON.stringify(loaded.problems)}`);
const db = await openDatabase(parseDatabaseUrl(`sqlite:${join(folder, 'runtime.db')}`));
await migrate(db);
const connections = new ConnectionPool({ baseDirectory: folder });
const environment: RunEnvironment = { snapshot: loaded.snapshot, connections, db };

/** One run, timed, its statistics checked against what it must have done. */
async function run(
  label: string,
  full: boolean,
  expect: (s: ItemStatistics) => boolean,
): Promise<{ label: string; ms: number; s: ItemStatistics }> {
  let outcome: RunOutcome | undefined;
  const elapsed = await timed(async () => {
    outcome = await runProcess(environment, {
      processId: syncId,
      ...(full ? { actionParams: [{ Name: 'FULL_RUN', Value: 'true' }] } : {}),
    });
  });
  const s = outcome!.statistics;
  if (outcome!.status !== 'Complete' || s.failed !== 0 || !expect(s))
    throw new Error(`${label}: ended ${outcome!.status} with ${JSON.stringify(s)}: ${JSON.stringify(outcome!.errors.slice(0, 3))}`);
  return { label, ms: elapsed, s };
}

try {
  const last = base + records * 1000;
  const first = await run('first run (reads and creates all)', false, (s) => s.read === records && s.created === records);
  const changedA = await changeSome(source, 0, last + 3_600_000);
  // The mark is the last timestamp; the look-back (1 minute) reads the last 60 records again.
  const incremental = await run(
    `repeat run, ${(share * 100).toFixed(0)}% changed (reads past the mark)`,
    false,
    (s) => s.updated === changedA && s.created === 0 && s.read < changedA + 100,
  );
  const changedB = await changeSome(source, Math.floor(every / 2), last + 7_200_000);
  const full = await run(
    `full repeat run, ${(share * 100).toFixed(0)}% changed (FULL_RUN)`,
    true,
    (s) => s.read === records && s.updated === changedB && s.unchanged === records - changedB,
  );
  const rows = [first, incremental, full].map(({ label, ms: elapsed, s }) => [
    label,
    ms(elapsed),
    s.read.toLocaleString('en'),
    (s.created + s.updated).toLocaleString('en'),
    (s.unchanged ?? 0).toLocaleString('en'),
    s.cursor?.from === null || s.cursor?.from === undefined ? 'everything' : `from ${String(s.cursor.from)}`,
  ]);
  console.log(
    `\n${records.toLocaleString('en')} records, SQLite → SQLite, cursor on a DateTime change timestamp (indexed), JSONata mapping, match on the target key\n`,
  );
  console.log(table(['run', 'time', 'read', 'written', 'unchanged', 'cursor'], rows));
  const againstFirst = first.ms / incremental.ms;
  const againstFull = full.ms / incremental.ms;
  console.log(
    `\nfirst (full) run / repeat run: ${againstFirst.toFixed(1)}× (goal ≥ ${goal}×: ${againstFirst >= goal ? 'met' : 'NOT met'})`,
  );
  console.log(`full repeat run / repeat run: ${againstFull.toFixed(1)}× (goal ≥ ${goal}×: ${againstFull >= goal ? 'met' : 'NOT met'})`);
} finally {
  await connections.closeAll();
  await db.close();
  rmSync(folder, { recursive: true, force: true });
}
