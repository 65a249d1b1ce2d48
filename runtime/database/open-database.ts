/**
 * The runtime database: one Knex instance for queue items, the record store and schedules.
 *
 * Every session is set up the same way, because the queue operations rely on it:
 * - SQLite: WAL journal (readers never wait for the writer), a busy timeout, foreign keys on,
 *   one pooled connection (SQLite has one writer at a time; a second connection would only wait),
 *   and transactions that begin IMMEDIATE (connectors/sql/sqlite-immediate-client.ts).
 * - PostgreSQL: a pool; the session time zone is UTC; `timestamptz` is read as a Date.
 * - MariaDB/MySQL: a pool; the session time zone is UTC and times are read as text in UTC
 *   (timestamps.ts); utf8mb4; backslash escapes on, since the driver escapes bound values with
 *   backslashes (a server running NO_BACKSLASH_ESCAPES would otherwise misread them). The
 *   server must know `SKIP LOCKED` (MariaDB 10.6, MySQL 8.0).
 *
 * Opening runs one statement, so a wrong URL, a missing server or an old version fails here with
 * a message naming the database, not at the first queue operation.
 */
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { DatabaseDialect, DatabaseLocation } from './database-url.js';
import { SqliteImmediateClient } from '../../connectors/sql/sqlite-immediate-client.js';

export interface RuntimeDatabase {
  readonly knex: Knex;
  readonly dialect: DatabaseDialect;
  readonly location: DatabaseLocation;
  /** In-process signals between the queue operations and the daemon (queue/notify.ts). */
  readonly events: EventEmitter;
  /** Runs `task` when the database closes, before the pool does (a listener's own connection); answers how to cancel that. */
  onClose(task: () => Promise<void>): () => void;
  /** Runs the onClose tasks, then closes every pooled connection; safe to call twice. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Most pooled connections to PostgreSQL or MariaDB (default 10); SQLite always uses one. */
  poolSize?: number;
  /** How long SQLite waits for another writer before giving up, in ms (default 5000). */
  busyTimeoutMs?: number;
}

export class DatabaseOpenError extends Error {
  override name = 'DatabaseOpenError';
}

type Callback = (error: Error | null, connection?: unknown) => void;
interface SqliteConnection {
  configure(option: 'busyTimeout', value: number): void;
  exec(sql: string, callback: (error: Error | null) => void): void;
}
interface MysqlConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
}

function ignore(): void {}
// Knex would print pool errors itself; they reach the caller (and the log) as errors instead.
const quiet = { warn: ignore, error: ignore, deprecate: ignore, debug: ignore };

function sqliteConfig(location: Extract<DatabaseLocation, { dialect: 'sqlite' }>, busyTimeoutMs: number): Knex.Config {
  return {
    client: SqliteImmediateClient as unknown as typeof Knex.Client,
    connection: { filename: location.filename },
    useNullAsDefault: true,
    log: quiet,
    pool: {
      min: 1,
      max: 1,
      afterCreate(connection: SqliteConnection, done: Callback) {
        connection.configure('busyTimeout', busyTimeoutMs);
        // synchronous = NORMAL is durable in WAL mode except for the last commits before a power loss.
        connection.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;', (error) => done(error, connection));
      },
    },
  };
}

function postgresConfig(url: string, poolSize: number): Knex.Config {
  return {
    client: 'pg',
    connection: { connectionString: url, application_name: 'syncline', options: '-c TimeZone=UTC' } as Knex.PgConnectionConfig,
    log: quiet,
    pool: { min: 0, max: poolSize },
  };
}

function mysqlConfig(url: string, poolSize: number): Knex.Config {
  return {
    client: 'mysql2',
    connection: { uri: url, timezone: 'Z', dateStrings: true, charset: 'utf8mb4', supportBigNumbers: true } as Knex.MySql2ConnectionConfig,
    log: quiet,
    pool: {
      min: 0,
      max: poolSize,
      afterCreate(connection: MysqlConnection, done: Callback) {
        connection.query(
          "SET SESSION time_zone = '+00:00', SESSION sql_mode = TRIM(BOTH ',' FROM REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ','))",
          (error) => done(error, connection),
        );
      },
    },
  };
}

function prepareSqliteFile(location: Extract<DatabaseLocation, { dialect: 'sqlite' }>): void {
  const folder = dirname(location.filename);
  if (location.createFolder) mkdirSync(folder, { recursive: true });
  else if (!existsSync(folder)) {
    throw new DatabaseOpenError(`cannot open the runtime database ${location.display}: the folder ${folder} does not exist; create it or choose another file`);
  }
  if (existsSync(location.filename) && statSync(location.filename).isDirectory()) {
    throw new DatabaseOpenError(`cannot open the runtime database ${location.display}: ${location.filename} is a folder, not a file`);
  }
}

/** Refuses servers without `SKIP LOCKED`, which claiming needs. */
async function checkVersion(knex: Knex, dialect: DatabaseDialect, display: string): Promise<void> {
  if (dialect === 'mysql') {
    const [rows] = (await knex.raw('SELECT VERSION() AS version')) as [Array<{ version: string }>];
    const version = rows[0]?.version ?? '';
    const [major = 0, minor = 0] = version.split(/[.-]/).map(Number);
    const mariadb = /mariadb/i.test(version);
    const supported = mariadb ? major > 10 || (major === 10 && minor >= 6) : major >= 8;
    if (!supported) {
      throw new DatabaseOpenError(`the runtime database ${display} runs ${mariadb ? 'MariaDB' : 'MySQL'} ${version}; Syncline needs MariaDB 10.6 or MySQL 8.0 or later (for SELECT … FOR UPDATE SKIP LOCKED)`);
    }
  } else if (dialect === 'postgres') {
    const result = (await knex.raw('SHOW server_version_num')) as { rows: Array<{ server_version_num: string }> };
    if (Number(result.rows[0]?.server_version_num ?? 0) < 95000) {
      throw new DatabaseOpenError(`the runtime database ${display} runs a PostgreSQL older than 9.5; Syncline needs SKIP LOCKED`);
    }
  } else {
    await knex.raw('SELECT 1');
  }
}

/** Opens (and for SQLite creates) the runtime database; no tables are created here (see migrate.ts). */
export async function openDatabase(location: DatabaseLocation, options: OpenOptions = {}): Promise<RuntimeDatabase> {
  const poolSize = options.poolSize ?? 10;
  let config: Knex.Config;
  if (location.dialect === 'sqlite') {
    prepareSqliteFile(location);
    config = sqliteConfig(location, options.busyTimeoutMs ?? 5000);
  } else {
    config = location.dialect === 'postgres' ? postgresConfig(location.url, poolSize) : mysqlConfig(location.url, poolSize);
  }
  const knex = knexFactory(config);
  try {
    await checkVersion(knex, location.dialect, location.display);
  } catch (error) {
    await knex.destroy();
    if (error instanceof DatabaseOpenError) throw error;
    const reason = (error as { message?: string }).message ?? String(error);
    throw new DatabaseOpenError(`cannot open the runtime database ${location.display}: ${reason}`, { cause: error });
  }

  const events = new EventEmitter();
  const closeTasks = new Set<() => Promise<void>>();
  let closing: Promise<void> | undefined;
  return {
    knex,
    dialect: location.dialect,
    location,
    events,
    onClose(task) {
      closeTasks.add(task);
      return () => void closeTasks.delete(task);
    },
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...closeTasks].map((task) => task()));
        closeTasks.clear();
        events.removeAllListeners();
        await knex.destroy();
      })();
      return closing;
    },
  };
}
