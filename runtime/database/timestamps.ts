/**
 * How times are stored in the runtime database, in UTC with millisecond precision:
 * PostgreSQL `timestamptz(3)`, MariaDB/MySQL `DATETIME(3)` (the session runs in UTC), SQLite ISO
 * 8601 text `YYYY-MM-DDTHH:MM:SS.sssZ`, which compares correctly as text because every value has
 * exactly that shape.
 *
 * Times come from the process clock and are bound as values; SQL never calls the database's own
 * clock. Callers pass `now`, so tests move time without waiting, and every statement of one
 * operation agrees on it. Processes sharing a database need synchronized clocks (NTP), which is
 * far finer than the lease lengths that depend on it.
 */
import { engines } from '../../connectors/sql/engines/index.js';
import type { DatabaseDialect } from './database-url.js';

/** A time as a value to bind on this dialect. */
export function toDatabaseTime(dialect: DatabaseDialect, time: Date): Date | string {
  return engines[dialect].databaseTime(time);
}

/** A time as read back: a Date (pg), `YYYY-MM-DD HH:MM:SS.sss` in UTC (mysql2 with dateStrings) or ISO text (SQLite). */
export function fromDatabaseTime(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'string') {
    const iso = /^\d{4}-\d{2}-\d{2} /.test(value) ? `${value.replace(' ', 'T')}Z` : value;
    const time = new Date(iso);
    if (!Number.isNaN(time.getTime())) return time;
  }
  throw new TypeError(`the runtime database returned ${JSON.stringify(value)} where a time was expected`);
}

/** Like fromDatabaseTime, keeping NULL as null. */
export function fromNullableDatabaseTime(value: unknown): Date | null {
  return value === null || value === undefined ? null : fromDatabaseTime(value);
}
