/**
 * The scenario the sync benchmarks share: `people` in one database become `contacts` in another
 * (two SQLite files, or two PostgreSQL databases), through a JSONata mapping and a key-match
 * upsert — once by Syncline's sync engine, and once by the copy an engineer would write by hand
 * with Knex and the same driver (keyset pages, the same mapping as a function, multi-row upserts
 * in a transaction per page). Both produce the same target rows; `targetDigest` proves it.
 *
 * A database is a `Store`; a plain string is the file name of a SQLite one.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { loadConnectorSpecs } from '../../connectors/index.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { parseDatabaseUrl } from '../../runtime/database/database-url.js';
import { migrate } from '../../runtime/database/migrate.js';
import { openDatabase, type RuntimeDatabase } from '../../runtime/database/open-database.js';
import type { RunEnvironment } from '../../runtime/execution/process-run.js';

/** The registered connectors, which the definitions are checked against. */
const connectors = await loadConnectorSpecs();

export const syncId = 'people-to-contacts';
export const pageSize = 1000;

const cities = ['Lisbon', 'Porto', 'Braga', 'Coimbra', 'Faro', 'Aveiro', 'Évora', 'Leiria'];

/** One database of the scenario: how the benchmark reaches it, and how a System definition does. */
export interface Store {
  engine: 'sqlite' | 'postgres';
  open(): Knex;
  /** The `connection` block of its System definition. */
  connection: Record<string, unknown>;
}

export function sqliteStore(filename: string): Store {
  return {
    engine: 'sqlite',
    open: () => knexFactory({ client: 'sqlite3', connection: { filename }, useNullAsDefault: true, pool: { min: 1, max: 1 } }),
    connection: { client: 'sqlite3', filename },
  };
}

/** A PostgreSQL database by URL, through the pg driver the connector uses. */
export function postgresStore(url: string): Store {
  return {
    engine: 'postgres',
    open: () => knexFactory({ client: 'pg', connection: { connectionString: url }, pool: { min: 1, max: 1 } }),
    connection: { client: 'pg', url },
  };
}

function storeOf(store: Store | string): Store {
  return typeof store === 'string' ? sqliteStore(store) : store;
}

async function openStore(store: Store | string): Promise<Knex> {
  const { engine, open } = storeOf(store);
  const knex = open();
  if (engine === 'sqlite') await knex.raw('PRAGMA journal_mode = WAL');
  return knex;
}

/** Writes `count` people to a new database (one transaction, multi-row inserts). */
export async function createSource(store: Store | string, count: number): Promise<void> {
  const knex = await openStore(store);
  try {
    await knex.schema.createTable('people', (table) => {
      table.integer('id').primary();
      table.string('first_name').notNullable();
      table.string('last_name').notNullable();
      table.string('email');
      table.string('city');
    });
    await knex.transaction(async (trx) => {
      const batch: Array<Record<string, unknown>> = [];
      for (let id = 1; id <= count; id += 1) {
        batch.push({
          id,
          first_name: `First${id}`,
          last_name: `Last${id % 977}`,
          email: `Person.${id}@Example.COM`,
          city: cities[id % cities.length],
        });
        // Knex inserts many rows on SQLite as one compound SELECT, which SQLite caps at 500 terms.
        if (batch.length === 400 || id === count) await trx('people').insert(batch.splice(0));
      }
    });
  } finally {
    await knex.destroy();
  }
}

/**
 * Changes every person's last name (one statement), so the next run updates every record: a run
 * over unchanged records writes nothing (the engine leaves unchanged records alone), and an update
 * run must have changes to write.
 */
export async function changeSource(store: Store | string): Promise<void> {
  const knex = await openStore(store);
  try {
    await knex('people').update({ last_name: knex.raw('?? || ?', ['last_name', '*']) });
  } finally {
    await knex.destroy();
  }
}

/** An empty `contacts` table keyed by ContactNumber. */
export async function createTarget(store: Store | string): Promise<void> {
  const knex = await openStore(store);
  try {
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

/** The definitions of the two systems and the sync, in a new directory. */
export function writeDefinitions(directory: string, stores: { source: Store | string; target: Store | string }): void {
  writeFileSync(
    join(directory, 'benchmark.yaml'),
    `kind: System
id: people
connector: sql
connection: ${JSON.stringify(storeOf(stores.source).connection)}
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
---
kind: System
id: contacts
connector: sql
connection: ${JSON.stringify(storeOf(stores.target).connection)}
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
source: { system: people, object: Person, order: id asc }
target: { system: contacts, object: Contact }
mapping: |
  { "ContactNumber": "P-" & $string(id), "FullName": first_name & " " & last_name, "Email": $lowercase(email), "City": city }
match:
  where: "ContactNumber = #ContactNumber#"
  onNoMatch: create
  onMatch: update
batchSize: ${pageSize}
timeout: 2h
`,
  );
}

/** The mapping above, by hand. */
function mapPerson(person: Record<string, unknown>): Record<string, unknown> {
  return {
    ContactNumber: `P-${String(person.id)}`,
    FullName: `${String(person.first_name)} ${String(person.last_name)}`,
    Email: typeof person.email === 'string' ? person.email.toLowerCase() : null,
    City: person.city ?? null,
  };
}

/** The hand-written copy: keyset pages, map, one upsert per page. Answers the records copied. */
export async function handWrittenCopy(stores: { source: Store | string; target: Store | string }): Promise<number> {
  const source = storeOf(stores.source).open();
  const target = storeOf(stores.target).open();
  // Four bindings per row: SQLite's multi-row INSERT is a compound SELECT (500 terms at most);
  // PostgreSQL takes the whole page in one statement.
  const perStatement = storeOf(stores.target).engine === 'sqlite' ? 250 : pageSize;
  let copied = 0;
  try {
    for (let after = 0; ; ) {
      const page = (await source('people').where('id', '>', after).orderBy('id').limit(pageSize)) as Array<Record<string, unknown>>;
      if (page.length === 0) break;
      const rows = page.map(mapPerson);
      await target.transaction(async (trx) => {
        for (let start = 0; start < rows.length; start += perStatement) {
          await trx('contacts')
            .insert(rows.slice(start, start + perStatement))
            .onConflict('ContactNumber')
            .merge();
        }
      });
      copied += page.length;
      after = Number(page.at(-1)!.id);
    }
  } finally {
    await Promise.all([source.destroy(), target.destroy()]);
  }
  return copied;
}

/** SHA-256 over every target row in key order, and how many there are. */
export async function targetDigest(store: Store | string): Promise<{ rows: number; digest: string }> {
  const knex = storeOf(store).open();
  try {
    const hash = createHash('sha256');
    let rows = 0;
    for (let after = ''; ; ) {
      const page = (await knex('contacts').where('ContactNumber', '>', after).orderBy('ContactNumber').limit(5000)) as Array<
        Record<string, unknown>
      >;
      if (page.length === 0) break;
      for (const row of page) hash.update(JSON.stringify([row.ContactNumber, row.FullName, row.Email, row.City])).update('\n');
      rows += page.length;
      after = String(page.at(-1)!.ContactNumber);
    }
    return { rows, digest: hash.digest('hex') };
  } finally {
    await knex.destroy();
  }
}

export interface SyncBench {
  directory: string;
  environment: RunEnvironment;
  close(): Promise<void>;
}

/** Definitions for the two files, loaded, with a migrated runtime database beside them. */
export async function syncEnvironment(stores: { source: Store | string; target: Store | string }): Promise<SyncBench> {
  const directory = mkdtempSync(join(tmpdir(), 'syncline-bench-defs-'));
  writeDefinitions(directory, stores);
  const loaded = await loadDefinitions([directory], { connectors });
  if (!loaded.ok) throw new Error(`benchmark definitions do not load: ${JSON.stringify(loaded.problems)}`);
  const snapshot: Snapshot = loaded.snapshot;
  const db: RuntimeDatabase = await openDatabase(parseDatabaseUrl(`sqlite:${join(directory, 'runtime.db')}`));
  await migrate(db);
  const connections = new ConnectionPool({ baseDirectory: directory });
  return {
    directory,
    environment: { snapshot, connections, db },
    async close() {
      await connections.closeAll();
      await db.close();
    },
  };
}
