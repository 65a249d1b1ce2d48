/**
 * SQLite (node-sqlite3). Sessions:
 * - System pools: foreign keys on, a busy timeout; the file must exist (it is never created for a
 *   System). The `data` pool is one connection whose transactions begin IMMEDIATE
 *   (sqlite-clients.ts) and wait for another writer as long as other engines wait for a
 *   match lock (match-locks.ts) — SQLite has one writer at a time, and a second connection would
 *   only wait for it. The `read` pool has several connections, `PRAGMA query_only` on, each
 *   statement interrupted at limits.statementTimeout (sqlite-clients.ts): any number of readers
 *   work at once; one that meets a write being committed waits for it (busy timeout) and sees
 *   every write that finished before the read started. The `query` pool (free queries) is
 *   `query_only` too; a free query arms its own timer (read-only-session.ts). In-memory databases
 *   and `file:` URIs keep everything on the `data` connection (another connection could open a
 *   different, empty, database there), so their reads are not timed.
 * - The runtime database: WAL journal (readers never wait for the writer), a busy timeout, foreign
 *   keys on, one connection whose transactions begin IMMEDIATE; read-only, the file opened so.
 *
 * Times are ISO 8601 text; booleans 0/1; no row locks, since a write transaction already keeps
 * every other writer out.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Knex } from 'knex';
import type { SystemLimits } from '../../../definitions/system-limits.js';
import type { FieldType } from '../../../definitions/types.js';
import type { ConnectionContext } from '../../connection.js';
import { ConnectorError } from '../../connector-error.js';
import { MAX_ROW_BYTES, queryValueBytes } from '../answer-size.js';
import { LOCK_WAIT_SECONDS } from '../match-locks.js';
import { sql, value, type SqlFragment } from '../sql-fragment.js';
import { int64Text, JS_WHITESPACE, quietLog, systemCommonConfig, type AfterCreateDone, type Engine, type PoolPurpose } from './engine.js';
import { SqliteImmediateClient, SqliteTimedClient } from './sqlite-clients.js';
import { fileGuard, SqliteRuntimeClient } from './sqlite-file-guard.js';
import { sqliteSession, type SqliteDatabase as SqliteSessionDatabase } from './sqlite-read-only-session.js';

/** sqlite3.h's SQLITE_LIMIT_LENGTH: the longest string or BLOB a connection makes or reads. */
const SQLITE_LIMIT_LENGTH = 0;

/** Connections of a SQLite file's read pool: as many as the driver's worker threads (libuv's default 4). */
const SQLITE_READERS = 4;

interface SqliteDatabase {
  configure(option: 'busyTimeout', value: number): void;
  configure(option: 'limit', id: number, value: number): void;
  exec(sql: string, callback: (error: Error | null) => void): void;
}

/** `file:` URI of a file opened read-only; `%`, `?` and `#` escaped, as they would start URI syntax. */
function readOnlyUri(filename: string): string {
  return `file:${filename.replace(/[%?#]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}?mode=ro`;
}

/** The SQLite file a System opens: relative paths are taken from the base directory (the definitions directory). */
export function sqliteFilename(settings: Record<string, unknown>, context: ConnectionContext): string {
  const filename = String(settings.filename ?? ':memory:');
  if (filename === ':memory:' || filename.startsWith('file:') || isAbsolute(filename)) return filename;
  return resolve(context.baseDirectory, filename);
}

/**
 * Free queries of a system that run at once: limits.concurrentQueries — at most half of libuv's
 * threads. node-sqlite3 runs each statement on one of those threads (UV_THREADPOOL_SIZE, default 4,
 * shared by the whole process: SQLite, file reads, DNS), and a statement holds its thread until it
 * ends; slow free queries on every thread would stall every SQLite system and the runtime database
 * until their timeouts.
 */
function queryConcurrency(limits: SystemLimits): number {
  const threads = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(limits.concurrentQueries, Math.floor(threads / 2)));
}

function systemAfterCreate(purpose: PoolPurpose, limits: SystemLimits) {
  const valueBytes = purpose === 'query' ? queryValueBytes(limits) : MAX_ROW_BYTES;
  return (connection: SqliteDatabase, done: AfterCreateDone): void => {
    // A writer waits for another as long as a PostgreSQL or MariaDB write waits for a match lock.
    connection.configure('busyTimeout', purpose === 'data' ? LOCK_WAIT_SECONDS * 1000 : 5000);
    // A longer value fails with SQLITE_TOOBIG in SQLite instead of in the driver (answer-size.ts).
    connection.configure('limit', SQLITE_LIMIT_LENGTH, valueBytes);
    const pragmas = purpose === 'data' ? 'PRAGMA foreign_keys = ON;' : 'PRAGMA foreign_keys = ON; PRAGMA query_only = ON;';
    connection.exec(pragmas, (error) => done(error, connection));
  };
}

function isoDateTimeText(expression: SqlFragment): SqlFragment {
  return sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${expression})`;
}

export const sqlite = Object.freeze<Engine>({
  name: 'sqlite',
  label: 'SQLite',
  clients: Object.freeze(['sqlite3']),

  systemConfig(settings: Record<string, unknown>, context: ConnectionContext, purpose: PoolPurpose, limits: SystemLimits): Knex.Config {
    return {
      ...systemCommonConfig,
      // Writes begin IMMEDIATE: the match lookup and the insert it leads to are one writer's.
      // Reads are interrupted at the statement timeout; free queries arm their own timer.
      ...(purpose === 'data'
        ? { client: SqliteImmediateClient as unknown as typeof Knex.Client }
        : purpose === 'read'
          ? { client: SqliteTimedClient, statementTimeoutMs: limits.statementTimeoutMs }
          : { client: 'sqlite3' }),
      useNullAsDefault: true,
      connection: { filename: sqliteFilename(settings, context) },
      pool: {
        min: 1,
        max: { data: 1, read: SQLITE_READERS, query: queryConcurrency(limits) }[purpose],
        afterCreate: systemAfterCreate(purpose, limits),
      },
    } as Knex.Config;
  },
  queryConcurrency,
  numberedPlaceholders: false,
  pageStatement: (statement: string, limit: string, offset: string) =>
    `SELECT * FROM (\n${statement}\n) AS syncline_query LIMIT ${limit} OFFSET ${offset}`,
  noLimit: -1,
  rowsRunAhead: true,
  readOnlySession: (connection: unknown, timeoutMs: number | undefined) => sqliteSession(connection as SqliteSessionDatabase, timeoutMs),
  hasOwnReadPool(settings: Record<string, unknown>, context: ConnectionContext): boolean {
    const filename = sqliteFilename(settings, context);
    return filename !== ':memory:' && !filename.startsWith('file:');
  },
  /** SQLite would create a missing file; a system pointing at a file that is not there is unreachable instead. */
  assertReachable(settings: Record<string, unknown>, context: ConnectionContext, systemId: string): void {
    const filename = sqliteFilename(settings, context);
    if (filename === ':memory:' || filename.startsWith('file:') || existsSync(filename)) return;
    throw new ConnectorError('unavailable', `system '${systemId}': the SQLite database file does not exist`, {
      details: { system: systemId, reason: 'file not found' },
    });
  },

  runtimeConfig(target, options): Knex.Config {
    if (!('filename' in target)) throw new TypeError('the SQLite runtime database is a file, not a URL');
    if (options.readOnly) {
      // A URI opens the file read-only (the driver's flags alone always add read-write); its
      // journal mode is left as it is, since setting it writes.
      return {
        client: 'sqlite3',
        connection: { filename: readOnlyUri(target.filename), flags: ['OPEN_URI'] },
        useNullAsDefault: true,
        log: quietLog,
        pool: {
          min: 1,
          max: 1,
          afterCreate(connection: SqliteDatabase, done: AfterCreateDone) {
            connection.configure('busyTimeout', options.busyTimeoutMs);
            connection.exec('PRAGMA query_only = ON;', (error) => done(error, connection));
          },
        },
      };
    }
    const config = {
      client: SqliteRuntimeClient as unknown as typeof Knex.Client,
      connection: { filename: target.filename },
      fileGuard: fileGuard(target.filename),
      useNullAsDefault: true,
      log: quietLog,
      pool: {
        min: 1,
        max: 1,
        afterCreate(connection: SqliteDatabase, done: AfterCreateDone) {
          connection.configure('busyTimeout', options.busyTimeoutMs);
          // synchronous = NORMAL is durable in WAL mode except for the last commits before a power loss.
          connection.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;', (error) =>
            done(error, connection),
          );
        },
      },
    };
    // A variable, not a literal: `fileGuard` is the client's own setting, unknown to Knex's types.
    return config;
  },
  async unsupportedServer(knex: Knex): Promise<string | undefined> {
    await knex.raw('SELECT 1');
    return undefined;
  },

  rowLocks: false,
  returning: true,
  writeTransaction: Object.freeze({}),
  // sqlite3 would bind a Date as epoch milliseconds, which does not compare with the stored text.
  databaseTime: (time: Date) => time.toISOString(),
  booleanBinding: (flag: boolean) => (flag ? 1 : 0),
  dateTimeText: (iso: string) => iso,
  roundsWideIntegers: true,
  holdsNul: true,
  rowsOf: (result: unknown) => result as Array<Record<string, unknown>>,

  isTrue: (expression: SqlFragment) => sql`(${expression} <> ${value(0)})`,
  textEquality: 'binary',
  binaryText: (expression: SqlFragment) => sql`(${expression} COLLATE BINARY)`,
  binaryTextValue: (bound: string) => value(bound),
  castText: (expression: SqlFragment) => sql`CAST(${expression} AS TEXT)`,
  // An integer within 64 bits exactly (CAST clamps a bigger one to 2^63 - 1); SQLite holds
  // anything else as a double itself.
  exactNumber: (text: string) => {
    const whole = int64Text(text);
    return whole === undefined ? value(Number(text)) : sql`CAST(${value(whole)} AS INTEGER)`;
  },
  // node-sqlite3 reads an integer as a double: one past 2^53 is read as its text instead — for a
  // String field too, whose column may hold integers (a 64-bit id kept as text by its definition).
  readColumn: (column: SqlFragment, as: SqlFragment, type: FieldType) =>
    type === 'Integer' || type === 'Number' || type === 'String'
      ? sql`CASE WHEN typeof(${column}) = 'integer' AND ${column} NOT BETWEEN -9007199254740991 AND 9007199254740991 THEN CAST(${column} AS TEXT) ELSE ${column} END as ${as}`
      : sql`${column} as ${as}`,
  numberValue: (number: number) => value(number),
  castNumber: (expression: SqlFragment) => sql`CAST(${expression} AS REAL)`,
  isoDateText: (expression: SqlFragment) => sql`date(${expression})`,
  isoDateTimeText,
  dateOperands: (expression: SqlFragment, day: string): [SqlFragment, SqlFragment] => [sql`date(${expression})`, value(day)],
  dateTimeOperands: (expression: SqlFragment, instant: Date): [SqlFragment, SqlFragment] => [
    isoDateTimeText(expression),
    value(instant.toISOString()),
  ],
  jsTrim: (expression: SqlFragment) => sql`trim(${expression}, ${value(JS_WHITESPACE)})`,
  charLength: (expression: SqlFragment) => sql`length(${expression})`,
  nullsOrder: () => '',
});
