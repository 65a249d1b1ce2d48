/**
 * The runtime database on each test database (test/support/databases.ts): SQLite always,
 * PostgreSQL and MariaDB where their servers answer. Each test file gets fresh databases.
 */
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { parseDatabaseUrl } from '../../runtime/database/database-url.js';
import { migrate } from '../../runtime/database/migrate.js';
import { openDatabase, type OpenOptions, type RuntimeDatabase } from '../../runtime/database/open-database.js';
import { describeEachDatabase, type TestDatabase } from './databases.js';

/** Opens another runtime database instance (its own pool) on the test database. */
export function openRuntimeDatabase(database: TestDatabase, options: OpenOptions = {}): Promise<RuntimeDatabase> {
  const url =
    database.engine === 'sqlite'
      ? `sqlite:${join(database.baseDirectory, String(database.connection.filename))}`
      : String(database.connection.url);
  return openDatabase(parseDatabaseUrl(url), options);
}

/**
 * Registers `body` once per database with a migrated runtime database opened before the tests and
 * closed after them. `runtime()` and `database()` are valid inside tests and hooks.
 */
export async function describeEachRuntimeDatabase(
  title: string,
  body: (runtime: () => RuntimeDatabase, database: () => TestDatabase) => void,
): Promise<void> {
  await describeEachDatabase(title, (database) => {
    // A nested suite, so its `after` (closing the pool) runs before the outer one drops the database.
    describe('migrated runtime database', () => {
      let runtime: RuntimeDatabase | undefined;
      before(async () => {
        runtime = await openRuntimeDatabase(database());
        await migrate(runtime);
      });
      after(async () => {
        await runtime?.close();
      });
      body(() => {
        if (runtime === undefined) throw new Error('the runtime database was not opened');
        return runtime;
      }, database);
    });
  });
}

/** A fixed clock for tests: `at(0)` is 2030-01-01T00:00:00Z, `at(n)` n seconds later. */
export function at(seconds: number): Date {
  return new Date(Date.UTC(2030, 0, 1) + seconds * 1000);
}
