/**
 * Knex configuration from a System's `connection` settings. Knex loads the driver (sqlite3, pg,
 * mysql2) when the instance is created, and the connection creates its instances on first use, so
 * a driver is loaded only when a system that needs it is actually used.
 *
 * Every session is set up the same way, because the filter compiler and the value codec rely on it:
 * - PostgreSQL: time zone UTC; `date` columns are read as `YYYY-MM-DD` text and `timestamp`
 *   (without time zone) as UTC, never in the process's local time zone.
 * - MariaDB/MySQL: time zone UTC; dates as text (`dateStrings`); big integers as numbers when safe;
 *   backslash escapes on (the driver escapes bindings with them); one statement per call. The
 *   `data` pool runs READ COMMITTED and counts affected (not found) rows, for the writes.
 * - SQLite: foreign keys on, a busy timeout; the file must exist (it is never created here).
 *   Transactions of the `data` pool begin IMMEDIATE (sqlite-immediate-client.ts) and wait for
 *   another writer as long as other engines wait for a match lock (match-locks.ts).
 *
 * The `read` purpose serves reads and counts of objects, on a pool of its own whose statements stop
 * at limits.statementTimeout (statement-timeout.ts says how, per engine); writes keep the `data`
 * pool, untimed. On SQLite the read pool has several connections, `PRAGMA query_only` on: SQLite
 * lets any number of readers work at once, while writes (and their transactions) keep the single
 * `data` connection, as SQLite has one writer at a time. A reader that meets a write being committed
 * waits for it (busy timeout), and sees every write that finished before the read started.
 * In-memory databases and `file:` URIs keep everything on the `data` connection (another connection
 * could open a different, empty, database there), so their reads are not timed.
 *
 * The `query` purpose is the dedicated pool of free queries, read-only at the session level:
 * PostgreSQL `default_transaction_read_only`, MariaDB `SET SESSION TRANSACTION READ ONLY`
 * (which also refuses DDL, unlike a READ ONLY transaction alone), SQLite `PRAGMA query_only`. It has
 * one connection per free query that may run at once (queryConcurrency).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import type { Knex } from 'knex';
import type { SystemLimits } from '../../definitions/system-limits.js';
import type { ConnectionContext } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { LOCK_WAIT_SECONDS } from './match-locks.js';
import { SqliteImmediateClient } from './sqlite-immediate-client.js';
import type { Dialect } from './sql-dialect.js';
import { pgStatementTimeoutOption, setMysqlStatementTime, SqliteTimedClient } from './statement-timeout.js';

export type PoolPurpose = 'data' | 'read' | 'query';

/** Connections of a SQLite file's read pool: as many as the driver's worker threads (libuv's default 4). */
const SQLITE_READERS = 4;

/**
 * Free queries of a system that run at once: limits.concurrentQueries — on SQLite at most half of
 * libuv's threads. node-sqlite3 runs each statement on one of those threads (UV_THREADPOOL_SIZE,
 * default 4, shared by the whole process: SQLite, file reads, DNS), and a statement holds its thread
 * until it ends; slow free queries on every thread would stall every SQLite system and the runtime
 * database until their timeouts.
 */
export function queryConcurrency(dialect: Dialect, limits: SystemLimits): number {
  if (dialect !== 'sqlite') return limits.concurrentQueries;
  const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(limits.concurrentQueries, Math.floor(threads / 2)));
}

interface ConnectionSettings {
  client?: string;
  filename?: string;
  url?: string;
  host?: string;
  port?: number | string;
  user?: string;
  password?: string;
  database?: string;
  searchPath?: string;
  ssl?: boolean;
  pool?: { min?: number; max?: number };
}

type Callback = (error: Error | null, connection?: unknown) => void;
interface SqliteDatabase {
  configure(option: 'busyTimeout', value: number): void;
  exec(sql: string, callback: (error: Error | null) => void): void;
}
interface MysqlConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
}

function ignore(): void {}

const PG_DATE = 1082;
const PG_TIMESTAMP = 1114;

/** PostgreSQL type parsers: dates stay text, timestamps without zone are UTC; the rest as pg does it. */
const pgTypes = {
  getTypeParser(oid: number, format?: string): (text: string) => unknown {
    if (oid === PG_DATE) return (text) => text;
    if (oid === PG_TIMESTAMP) {
      return (text) => {
        const date = new Date(`${text.replace(' ', 'T')}Z`);
        return Number.isNaN(date.getTime()) ? text : date;
      };
    }
    // pg is loaded by now: these parsers are asked for only by a live pg connection.
    const pg = createRequire(import.meta.url)('pg') as { types: { getTypeParser(oid: number, format?: string): (text: string) => unknown } };
    return pg.types.getTypeParser(oid, format);
  },
};

/** The SQLite file a connection opens: relative paths are taken from the base directory (the definitions directory). */
export function sqliteFilename(settings: Record<string, unknown>, context: ConnectionContext): string {
  const filename = String(settings.filename ?? ':memory:');
  if (filename === ':memory:' || filename.startsWith('file:') || isAbsolute(filename)) return filename;
  return resolve(context.baseDirectory, filename);
}

/** SQLite would create a missing file; a system pointing at a file that is not there is unreachable instead. */
export function assertSqliteFileExists(filename: string, systemId: string): void {
  if (filename === ':memory:' || filename.startsWith('file:') || existsSync(filename)) return;
  throw new ConnectorError('unavailable', `system '${systemId}': the SQLite database file does not exist`, {
    details: { system: systemId, reason: 'file not found' },
  });
}

/** Whether reads of a system get their own pool, or share the `data` pool (see the top of this file). */
export function hasOwnReadPool(dialect: Dialect, raw: Record<string, unknown>, context: ConnectionContext): boolean {
  if (dialect !== 'sqlite') return true;
  const filename = sqliteFilename(raw, context);
  return filename !== ':memory:' && !filename.startsWith('file:');
}

function sqliteAfterCreate(purpose: PoolPurpose) {
  return (connection: SqliteDatabase, done: Callback): void => {
    // A writer waits for another as long as a PostgreSQL or MariaDB write waits for a match lock.
    connection.configure('busyTimeout', purpose === 'data' ? LOCK_WAIT_SECONDS * 1000 : 5000);
    const pragmas = purpose === 'data' ? 'PRAGMA foreign_keys = ON;' : 'PRAGMA foreign_keys = ON; PRAGMA query_only = ON;';
    connection.exec(pragmas, (error) => done(error, connection));
  };
}

function mysqlAfterCreate(purpose: PoolPurpose, limits: SystemLimits) {
  const statements = [
    "SET SESSION time_zone = '+00:00', SESSION sql_mode = TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))",
    // Free queries: writes and DDL refused for the whole session; a derived table keeps its
    // ORDER BY only when it is not merged into the outer query (query.ts wraps for LIMIT/OFFSET).
    ...(purpose === 'query' ? ['SET SESSION TRANSACTION READ ONLY', "SET SESSION optimizer_switch = 'derived_merge=off'"] : []),
    // Writes: a match lookup made after waiting for another write's lock must see what that
    // write committed, which REPEATABLE READ's snapshot (taken at the first read) would hide.
    ...(purpose === 'data' ? ['SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'] : []),
  ];
  return (connection: MysqlConnection, done: Callback): void => {
    const next = (index: number): void => {
      const statement = statements[index];
      if (statement !== undefined) return connection.query(statement, (error) => (error ? done(error, connection) : next(index + 1)));
      if (purpose === 'data') return done(null, connection);
      setMysqlStatementTime(connection, limits.statementTimeoutMs).then(() => done(null, connection), (error: Error) => done(error, connection));
    };
    next(0);
  };
}

function serverConnection(settings: ConnectionSettings): Record<string, unknown> {
  if (settings.url !== undefined) return {};
  return {
    host: settings.host,
    ...(settings.port === undefined ? {} : { port: Number(settings.port) }),
    ...(settings.user === undefined ? {} : { user: settings.user }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    database: settings.database,
  };
}

/** Sizes of a PostgreSQL or MariaDB pool: `pool` of the settings; the query pool has one connection per query that may run. */
function serverPool(settings: ConnectionSettings, dialect: Dialect, purpose: PoolPurpose, limits: SystemLimits): { min: number; max: number } {
  const max = purpose === 'query' ? queryConcurrency(dialect, limits) : (settings.pool?.max ?? 10);
  return { min: Math.min(settings.pool?.min ?? 0, max), max };
}

/** The Knex configuration of one pool of a system. */
export function knexConfig(dialect: Dialect, raw: Record<string, unknown>, context: ConnectionContext, purpose: PoolPurpose, limits: SystemLimits): Knex.Config {
  const settings = raw as ConnectionSettings;
  // Knex would print pool errors to the console itself; they reach the caller as ConnectorErrors
  // (with the driver error as cause), and the runtime logs those.
  const quiet = { warn: ignore, error: ignore, deprecate: ignore, debug: ignore };
  const common = { compileSqlOnError: false, acquireConnectionTimeout: 30_000, log: quiet } as const;
  switch (dialect) {
    case 'sqlite':
      return {
        ...common,
        // Writes begin IMMEDIATE: the match lookup and the insert it leads to are one writer's.
        // Reads are interrupted at the statement timeout; free queries arm their own timer.
        ...(purpose === 'data'
          ? { client: SqliteImmediateClient as unknown as typeof Knex.Client }
          : purpose === 'read'
            ? { client: SqliteTimedClient, statementTimeoutMs: limits.statementTimeoutMs }
            : { client: 'sqlite3' }),
        useNullAsDefault: true,
        connection: { filename: sqliteFilename(raw, context) },
        // Writes: one connection, as SQLite has one writer at a time and a second one would only
        // wait for it. Reads and free queries: several, since SQLite readers do not wait for each other.
        pool: { min: 1, max: { data: 1, read: SQLITE_READERS, query: queryConcurrency(dialect, limits) }[purpose], afterCreate: sqliteAfterCreate(purpose) },
      } as Knex.Config;
    case 'postgres':
      return {
        ...common,
        client: 'pg',
        connection: {
          ...(settings.url === undefined ? serverConnection(settings) : { connectionString: settings.url }),
          ...(settings.ssl ? { ssl: true } : {}),
          application_name: purpose === 'query' ? 'syncline-query' : 'syncline',
          options: ['-c TimeZone=UTC', ...(purpose === 'data' ? [] : [pgStatementTimeoutOption(limits.statementTimeoutMs)]), ...(purpose === 'query' ? ['-c default_transaction_read_only=on'] : [])].join(' '),
          types: pgTypes,
        } as Knex.PgConnectionConfig,
        ...(settings.searchPath === undefined ? {} : { searchPath: [settings.searchPath] }),
        pool: serverPool(settings, dialect, purpose, limits),
      };
    case 'mysql':
      return {
        ...common,
        client: 'mysql2',
        connection: {
          ...(settings.url === undefined ? serverConnection(settings) : { uri: settings.url }),
          ...(settings.ssl ? { ssl: {} } : {}),
          timezone: 'Z',
          dateStrings: true,
          supportBigNumbers: true,
          bigNumberStrings: false,
          charset: 'utf8mb4',
          // Affected rows, not found rows: an insert whose ON DUPLICATE KEY UPDATE changed nothing
          // then counts 0, which tells the writes (conflict-insert.ts) it met an existing record.
          ...(purpose === 'data' ? { flags: '-FOUND_ROWS' } : {}),
        } as Knex.MySql2ConnectionConfig,
        pool: { ...serverPool(settings, dialect, purpose, limits), afterCreate: mysqlAfterCreate(purpose, limits) },
      };
  }
}
