/**
 * When the runtime database itself fails — unreachable, out of disk, locked past its busy timeout,
 * read-only, closed — no request that needs it can succeed now, and every one may succeed a
 * moment later. Such errors are answered 503 with Retry-After, naming the runtime database and
 * never the driver's words (errors.ts), and they make /readyz unready (write-probe.ts).
 *
 * The driver errors are classified where the SQL connector classifies its systems'
 * (connectors/sql/driver-failure.ts); the runtime adds what only it has: a read-only server or
 * file (for a system that is the caller's concern, a 403; for the runtime database it is an outage)
 * and its own closed state.
 */
import { driverFailure, type DriverFailure } from '../../connectors/sql/driver-failure.js';

/** Seconds a caller is asked to wait before trying again (Retry-After): long enough for a restart or a failover to finish, short enough to notice recovery soon. */
export const retryAfterSeconds = 5;

/** Thrown for work handed to a runtime database that is closing or closed (the process is stopping). */
export class RuntimeDatabaseClosedError extends Error {
  override name = 'RuntimeDatabaseClosedError';
}

export type RuntimeDatabaseFailure = Omit<DriverFailure, 'kind'> & { kind: DriverFailure['kind'] | 'read-only' | 'not-migrated' };

/** The failure of the runtime database that `error` stands for; undefined for any other error. */
export function runtimeDatabaseFailure(error: unknown): RuntimeDatabaseFailure | undefined {
  if (error instanceof RuntimeDatabaseClosedError) return { kind: 'closed', reason: 'it is closing (the process is stopping)' };
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  // PostgreSQL read_only_sql_transaction (a standby after a failover), MariaDB/MySQL --read-only
  // (1290) and read-only transactions (1792), a SQLite file or folder without write permission.
  if (code === '25006' || errno === 1290 || errno === 1792 || (typeof code === 'string' && code.startsWith('SQLITE_READONLY'))) {
    return { kind: 'read-only', reason: 'it accepts no writes (a read-only server or file)' };
  }
  // Its SQLite file deleted or replaced under the process (connectors/sql/engines/sqlite-file-guard.ts).
  if (code === 'SYNCLINE_FILE_REPLACED') {
    return { kind: 'file', reason: 'its file was deleted or replaced while this process ran; restart the process' };
  }
  // Its own tables missing: a database created anew, emptied or restored from before Syncline's
  // migrations, while the process runs — every query fails until `syncline migrate` runs.
  const message = String((error as { message?: unknown } | null)?.message ?? '');
  if (code === '42P01' || errno === 1146 || (code === 'SQLITE_ERROR' && /no such table/.test(message))) {
    return { kind: 'not-migrated', reason: 'its tables are missing (a new, emptied or restored database); run syncline migrate' };
  }
  return driverFailure(error);
}
