/** `syncline migrate` — creates or upgrades the runtime database and says what it applied. */
import { databaseSetting, DatabaseUrlError, type DatabaseLocation } from '../database/database-url.js';
import { migrate, newerMigrations, newerMigrationsWarning } from '../database/migrate.js';
import { openDatabase, type RuntimeDatabase } from '../database/open-database.js';
import { oneLine } from './open-runtime-database.js';

export async function migrateCommand(flags: { db?: string }): Promise<number> {
  let location: DatabaseLocation;
  try {
    // Only the database setting: a bad daemon setting in the environment must not block a migration.
    location = databaseSetting(flags.db);
  } catch (error) {
    if (!(error instanceof DatabaseUrlError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  let db: RuntimeDatabase;
  try {
    db = await openDatabase(location);
  } catch (error) {
    process.stderr.write(`error: ${oneLine(error)}\n`);
    return 1;
  }
  try {
    const applied = await migrate(db, { onLockWait: (notice) => process.stderr.write(`${notice}\n`) });
    for (const name of applied) process.stdout.write(`applied ${name}\n`);
    const newer = newerMigrationsWarning(location.display, await newerMigrations(db));
    if (newer !== undefined) process.stderr.write(`warning: ${newer}\n`);
    process.stdout.write(
      applied.length === 0 ? `${location.display} is up to date\n` : `${location.display}: ${applied.length} migration(s) applied\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${oneLine(error)}\n`);
    return 1;
  } finally {
    await db.close();
  }
}
