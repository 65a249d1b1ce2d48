/**
 * The real databases integration tests run against: SQLite always (a file in a temporary
 * directory), PostgreSQL and MariaDB when their servers answer. Each test file gets FRESH
 * databases (`syncline_test_<random>`, created through the server's `test` database and dropped
 * afterwards), so files never see each other's data. Nothing is started here; `.ci/run` starts
 * the servers.
 *
 * A server that does not answer: outside CI one line "skipping PostgreSQL tests: <reason>" on
 * stderr and the suite is skipped; with CI=true the suite fails instead.
 *
 * Environment: SYNCLINE_TEST_DATABASES (comma list of sqlite, postgres, mariadb; default all),
 * SYNCLINE_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test),
 * SYNCLINE_TEST_MARIADB_URL (default mysql://root@127.0.0.1:3306/test).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import knexFactory, { type Knex } from 'knex';

export type Engine = 'sqlite' | 'postgres' | 'mariadb';

export interface TestDatabase {
  engine: Engine;
  label: string;
  /** The `connection` block of a System definition that reaches this database. */
  connection: Record<string, unknown>;
  /** Where relative paths of `connection` are resolved from. */
  baseDirectory: string;
  /** Direct access to the same database, for set-up and for checking what a test did. */
  admin: Knex;
  drop(): Promise<void>;
}

/**
 * The `connection` block for a System definition loaded outside `baseDirectory` (a snapshot made
 * in the test): a SQLite file named by its absolute path.
 */
export function absoluteConnection(database: TestDatabase): Record<string, unknown> {
  const connection = { ...database.connection };
  if (database.engine === 'sqlite') connection.filename = join(database.baseDirectory, String(connection.filename));
  return connection;
}

export interface DatabaseTarget {
  engine: Engine;
  label: string;
  /** Why the server cannot be used; absent when it can. */
  unavailable?: string;
  create(): Promise<TestDatabase>;
}

const LABELS: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL', mariadb: 'MariaDB' };
const POSTGRES_URL = process.env.SYNCLINE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MARIADB_URL = process.env.SYNCLINE_TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/test';

function freshName(): string {
  return `syncline_test_${randomBytes(6).toString('hex')}`;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

const quiet = { warn() {}, error() {}, deprecate() {}, debug() {} };

function serverKnex(engine: 'postgres' | 'mariadb', url: string): Knex {
  return engine === 'postgres'
    ? knexFactory({
        client: 'pg',
        connection: { connectionString: url, connectionTimeoutMillis: 3000 },
        pool: { min: 0, max: 2 },
        log: quiet,
      })
    : knexFactory({
        client: 'mysql2',
        connection: { uri: url, connectTimeout: 3000, dateStrings: true, timezone: 'Z' } as never,
        pool: { min: 0, max: 2 },
        log: quiet,
      });
}

/** Why the server cannot be used, or undefined when it answers. */
async function probe(engine: 'postgres' | 'mariadb', url: string): Promise<string | undefined> {
  const knex = serverKnex(engine, url);
  try {
    await knex.raw('SELECT 1');
    return undefined;
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    return `${new URL(url).host} does not answer (${code ?? message ?? 'unknown error'})`;
  } finally {
    await knex.destroy();
  }
}

function sqliteTarget(): DatabaseTarget {
  return {
    engine: 'sqlite',
    label: LABELS.sqlite,
    async create() {
      const directory = mkdtempSync(join(tmpdir(), 'syncline-test-'));
      // The test's own statements wait for a writer of the code under test (as that code waits for
      // theirs): without a busy timeout, a table dropped while a sync writes a page fails at once
      // with "database is locked", depending on how the two happen to interleave.
      const admin = knexFactory({
        client: 'sqlite3',
        connection: { filename: join(directory, 'test.sqlite') },
        useNullAsDefault: true,
        pool: {
          afterCreate(connection: { configure(option: 'busyTimeout', ms: number): void }, done: (error: Error | null) => void) {
            connection.configure('busyTimeout', 30_000);
            done(null);
          },
        },
      });
      await admin.raw('PRAGMA journal_mode = WAL');
      return {
        engine: 'sqlite',
        label: LABELS.sqlite,
        connection: { client: 'sqlite3', filename: 'test.sqlite' },
        baseDirectory: directory,
        admin,
        async drop() {
          await admin.destroy();
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  };
}

function serverTarget(engine: 'postgres' | 'mariadb', url: string, unavailable: string | undefined): DatabaseTarget {
  return {
    engine,
    label: LABELS[engine],
    ...(unavailable === undefined ? {} : { unavailable }),
    async create() {
      const name = freshName();
      const server = serverKnex(engine, url);
      await server.raw(
        engine === 'postgres' ? 'CREATE DATABASE ??' : 'CREATE DATABASE ?? CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci',
        [name],
      );
      const databaseUrl = withDatabase(url, name);
      const admin = serverKnex(engine, databaseUrl);
      return {
        engine,
        label: LABELS[engine],
        connection: { client: engine === 'postgres' ? 'pg' : 'mysql2', url: databaseUrl },
        baseDirectory: tmpdir(),
        admin,
        async drop() {
          await admin.destroy();
          try {
            await server.raw(engine === 'postgres' ? 'DROP DATABASE ?? WITH (FORCE)' : 'DROP DATABASE ??', [name]);
          } finally {
            await server.destroy();
          }
        },
      };
    },
  };
}

/** The databases to test against, in order: SQLite, PostgreSQL, MariaDB (as selected and reachable). */
export async function databaseTargets(): Promise<DatabaseTarget[]> {
  const selected = new Set((process.env.SYNCLINE_TEST_DATABASES ?? 'sqlite,postgres,mariadb').split(',').map((name) => name.trim()));
  const targets: DatabaseTarget[] = [];
  if (selected.has('sqlite')) targets.push(sqliteTarget());
  if (selected.has('postgres')) targets.push(serverTarget('postgres', POSTGRES_URL, await probe('postgres', POSTGRES_URL)));
  if (selected.has('mariadb')) targets.push(serverTarget('mariadb', MARIADB_URL, await probe('mariadb', MARIADB_URL)));
  return targets;
}

/**
 * Registers `body` once per database target inside `describe('<title> on <label>')`, with a fresh
 * database created before and dropped after. `database()` is valid inside the tests and hooks.
 */
export async function describeEachDatabase(title: string, body: (database: () => TestDatabase) => void): Promise<void> {
  for (const target of await databaseTargets()) {
    const suite = `${title} on ${target.label}`;
    if (target.unavailable !== undefined) {
      if (process.env.CI === 'true') {
        describe(suite, () => {
          test(`${target.label} is reachable (required in CI)`, () => {
            throw new Error(`${target.label} is required in CI: ${target.unavailable}`);
          });
        });
      } else {
        process.stderr.write(`skipping ${target.label} tests: ${target.unavailable}\n`);
        describe(suite, { skip: `${target.label} unavailable: ${target.unavailable}` }, () => {});
      }
      continue;
    }
    describe(suite, () => {
      let database: TestDatabase | undefined;
      before(async () => {
        database = await target.create();
      });
      after(async () => {
        await database?.drop();
      });
      body(() => {
        if (database === undefined) throw new Error(`the ${target.label} test database was not created`);
        return database;
      });
    });
  }
}
