/**
 * The runtime database of a command: opened and migrated, or one clear line on standard error.
 * Long-running commands migrate at start so a fresh database needs no separate step; a dry run
 * only reads it.
 */
import type { DatabaseLocation } from '../database/database-url.js';
import { migrate, newerMigrations, newerMigrationsWarning } from '../database/migrate.js';
import { openDatabase, type RuntimeDatabase } from '../database/open-database.js';
import type { Logger } from '../log.js';

/** The migrated database, or undefined after printing why it cannot be used. */
export async function openMigratedDatabase(location: DatabaseLocation, log?: Logger): Promise<RuntimeDatabase | undefined> {
  let db: RuntimeDatabase;
  try {
    db = await openDatabase(location);
  } catch (error) {
    process.stderr.write(`error: ${oneLine(error)}\n`);
    return undefined;
  }
  try {
    const applied = await migrate(db, {
      // Without a logger (a short command), the notice goes where its errors go.
      onLockWait: (notice) => (log === undefined ? process.stderr.write(`${notice}\n`) : log.warn({ database: location.display }, notice)),
    });
    if (applied.length > 0) log?.info({ database: location.display, applied }, 'runtime database migrated');
    const newer = newerMigrationsWarning(location.display, await newerMigrations(db));
    if (newer !== undefined) log?.warn({ database: location.display }, newer);
  } catch (error) {
    process.stderr.write(`error: ${oneLine(error)}\n`);
    await db.close();
    return undefined;
  }
  return db;
}

/**
 * The database opened to read only (a dry run reading a record store): never created or migrated;
 * undefined after printing why it cannot be read — also when it has no record store yet.
 */
export async function openReadableDatabase(location: DatabaseLocation): Promise<RuntimeDatabase | undefined> {
  let db: RuntimeDatabase;
  try {
    db = await openDatabase(location, { readOnly: true });
  } catch (error) {
    process.stderr.write(`error: ${oneLine(error)}\n`);
    return undefined;
  }
  try {
    if (await db.knex.schema.hasTable('record_store')) return db;
    process.stderr.write(
      `error: the runtime database ${location.display} has no record store yet; \`syncline migrate\` creates it (a dry run changes nothing)\n`,
    );
  } catch (error) {
    process.stderr.write(`error: ${oneLine(error)}\n`);
  }
  await db.close();
  return undefined;
}

/** A driver's message may span lines (MariaDB's, a stack in a cause); the first says what happened. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0]!.trim();
}
