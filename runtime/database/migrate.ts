/**
 * Creates or upgrades the runtime database: the numbered migrations of ./migrations, applied in
 * order through Knex's migrator (which records them in `syncline_migrations` and holds
 * `syncline_migrations_lock` meanwhile, so processes starting together migrate once). Runs at
 * start and by `syncline migrate`; running it again on an up-to-date database does nothing.
 */
import type { Knex } from 'knex';
import type { Migration } from './migrations/migration.js';
import { migrations } from './migrations/index.js';
import type { RuntimeDatabase } from './open-database.js';

export const migrationTable = 'syncline_migrations';

const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration,
};

/**
 * Knex refuses a database holding a migration it does not know ("the migration directory is
 * corrupt"); here that is a database a newer Syncline upgraded, which this version still runs on —
 * migrations only add — so a replica of the previous version can restart during a rollout.
 */
const config: Knex.MigratorConfig = { migrationSource, tableName: migrationTable, disableMigrationsListValidation: true };

/** What to do when no process is migrating but the lock is held: an interrupted migration left it. */
const staleLockAdvice = `If none is migrating, a migration was interrupted: set is_locked = 0 in ${migrationTable}_lock and run syncline migrate again`;

export interface MigrateOptions {
  /** How long to wait for a migration lock another process holds, in ms (default 60 s). */
  lockWaitMs?: number;
  /**
   * Called once, with the text to show, when the lock has been waited for `lockNoticeMs` (default
   * 2 s): a migration of a few seconds passes unnoticed, a lock left by an interrupted one is
   * named while the wait goes on, not only at its end.
   */
  onLockWait?: (notice: string) => void;
  lockNoticeMs?: number;
}

/**
 * Applies the pending migrations; answers the names applied now (empty when up to date).
 *
 * Processes starting together race: one holds the migration lock and the others are refused
 * ("already locked") or trip over tables the winner is creating. They wait and try again; by
 * then the winner is done, and they find nothing left to apply.
 */
export async function migrate(db: RuntimeDatabase, options: MigrateOptions = {}): Promise<string[]> {
  const lockWaitMs = options.lockWaitMs ?? 60_000;
  const started = Date.now();
  const deadline = started + lockWaitMs;
  let noticed = false;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const [, applied] = (await db.knex.migrate.latest(config)) as [number, string[]];
      return applied;
    } catch (error) {
      const locked = (error as Error).name === 'MigrationLocked';
      if (locked && !noticed && Date.now() - started >= (options.lockNoticeMs ?? 2000)) {
        noticed = true;
        const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
        options.onLockWait?.(
          `waiting for the migration lock of the runtime database ${db.location.display}: another process holds it, probably migrating it now; giving up in ${left}s. ${staleLockAdvice}`,
        );
      }
      if (locked ? Date.now() < deadline : attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, locked ? 250 : 100 * attempt));
        continue;
      }
      const reason = (error as { message?: string }).message ?? String(error);
      const hint = locked ? `; another process has held the migration lock for too long. ${staleLockAdvice}` : '';
      throw new Error(`migrating the runtime database ${db.location.display} failed: ${reason}${hint}`, { cause: error });
    }
  }
}

/** Which migrations ran and which are pending, by name. */
export async function migrationStatus(db: RuntimeDatabase): Promise<{ applied: string[]; pending: string[] }> {
  const [completed, pending] = (await db.knex.migrate.list(config)) as [Array<{ name: string }>, Migration[]];
  return { applied: completed.map((entry) => entry.name), pending: pending.map((migration) => migration.name) };
}

/** Migrations the database records that this version does not have: it was upgraded by a newer one. */
export async function newerMigrations(db: RuntimeDatabase): Promise<string[]> {
  const known = new Set(migrations.map((migration) => migration.name));
  const recorded = (await db.knex(migrationTable).select('name').orderBy('id')) as Array<{ name: string }>;
  return recorded.map((row) => row.name).filter((name) => !known.has(name));
}

/** The warning for `newer`, or undefined when there are none. */
export function newerMigrationsWarning(display: string, newer: readonly string[]): string | undefined {
  if (newer.length === 0) return undefined;
  return `the runtime database ${display} was upgraded by a newer Syncline (${newer.join(', ')}); this version runs on it, as during a rollout — finish rolling out the newer version`;
}
