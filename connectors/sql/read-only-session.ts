/**
 * A session in which the database itself refuses to write, for free queries. It runs on a raw
 * connection of the system's dedicated query pool (engines/, purpose 'query'), through the
 * driver directly, so the statement reaches the database exactly as written — Knex would read
 * every `?` in it as a placeholder — and only the values of `#FlowFilter#` are bound.
 *
 * - PostgreSQL: `BEGIN READ ONLY` on a session whose default is read-only too; the extended
 *   protocol, which refuses a second statement (`SELECT 1; DELETE …`).
 * - MariaDB/MySQL: `START TRANSACTION READ ONLY` on a session set `READ ONLY` — the session setting
 *   matters: DDL commits implicitly and would escape a read-only transaction alone. The driver
 *   refuses a second statement (multipleStatements is off).
 * - SQLite: `PRAGMA query_only = ON`, set again before every statement (a statement could have
 *   turned it off for the next one), inside a transaction so statement and count see one state.
 *
 * Each session ends with ROLLBACK. What the database cannot stop is left to its privileges: give
 * the system's user no rights beyond reading (PostgreSQL `COPY … TO PROGRAM` and MariaDB
 * `SELECT … INTO OUTFILE` write files even in read-only transactions when the user may; query.ts
 * refuses INTO before a statement is sent).
 *
 * Rows are handed over one by one as the database produces them (`each`), never collected here, so
 * the caller decides how many it keeps and stops the statement when it has enough:
 * - PostgreSQL: a cursor (`DECLARE … NO SCROLL CURSOR`) read with FETCH, in batches sized to about
 *   a megabyte of rows; stopping just leaves the cursor to the ROLLBACK.
 * - MariaDB: mysql2's row events, handled as they are parsed from the socket; stopping closes the
 *   connection (the only way to end a result the server is still sending), which the pool then
 *   replaces.
 * - SQLite: node-sqlite3's `each`, whose worker thread steps the statement while the rows are
 *   handed over; stopping interrupts the statement. The worker runs somewhat ahead of the rows
 *   handed over (those rows are dropped after a stop), by as much as it produces while the event
 *   loop is busy elsewhere; query.ts bounds that with a LIMIT around the statement. Stepping with
 *   one `get` per row would keep it from running ahead, but costs a thread hop per row: about 20
 *   times slower.
 *
 * The session's whole run is bounded by `timeoutMs` (statement-timeout.ts): every statement of it
 * gets only the time left.
 */
import type { Knex } from 'knex';
import type { Dialect } from './sql-dialect.js';
import { DeadlinePassed, interruptAfter, setMysqlStatementTime } from './statement-timeout.js';

export type Row = Record<string, unknown>;

/** Takes one row; false stops the statement (no more rows are handed over). */
export type RowSink = (row: Row) => boolean;

export interface ReadOnlySession {
  all(statement: string, bindings: readonly unknown[]): Promise<Row[]>;
  /** Hands each row of the statement to `sink` as it arrives; resolves when it ended or `sink` stopped it. */
  each(statement: string, bindings: readonly unknown[], sink: RowSink): Promise<void>;
}

interface PgClient {
  query(config: string | { text: string; values: unknown[]; queryMode: 'extended' }): Promise<{ rows: Row[] }>;
}
interface MysqlQuery {
  on(event: 'result', listener: (row: Row) => void): MysqlQuery;
  on(event: 'error', listener: (error: Error) => void): MysqlQuery;
  on(event: 'end', listener: () => void): MysqlQuery;
}
interface MysqlConnection {
  query(options: string | { sql: string; values: unknown[] }, callback?: (error: Error | null, rows?: unknown) => void): MysqlQuery;
  destroy(): void;
  stream: { destroy(): void };
}
interface SqliteStatement {
  each(row: (error: (Error & { code?: string }) | null, row: Row) => void, complete: () => void): void;
  finalize(callback: () => void): void;
}
interface SqliteDatabase {
  exec(sql: string, callback: (error: Error | null) => void): void;
  all(sql: string, params: unknown[], callback: (error: Error | null, rows?: Row[]) => void): void;
  prepare(sql: string, params: unknown[], callback: (error: Error | null) => void): SqliteStatement;
  interrupt(): void;
}

/** Rows fetched per FETCH: about this many bytes of them, judged by the previous batch. */
const PG_BATCH_BYTES = 1024 * 1024;
const PG_BATCH_ROWS = { first: 100, most: 1000 };

function mysqlQuery(connection: MysqlConnection, sql: string, values: readonly unknown[] = []): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    connection.query({ sql, values: [...values] }, (error, rows) => (error ? reject(error) : resolve(Array.isArray(rows) ? (rows as Row[]) : [])));
  });
}

function sqliteExec(connection: SqliteDatabase, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function sqliteAll(connection: SqliteDatabase, sql: string, values: readonly unknown[]): Promise<Row[]> {
  return new Promise((resolve, reject) => connection.all(sql, [...values], (error, rows) => (error ? reject(error) : resolve(rows ?? []))));
}

/** The time a session has left; a statement must not start once it is spent. */
class Deadline {
  private readonly at: number | undefined;

  constructor(ms: number | undefined) {
    this.at = ms === undefined ? undefined : Date.now() + ms;
  }

  /** Milliseconds left, or undefined without a deadline; throws when none are left. */
  left(): number | undefined {
    if (this.at === undefined) return undefined;
    const left = this.at - Date.now();
    if (left <= 0) throw new DeadlinePassed();
    return left;
  }
}

interface DriverSession extends ReadOnlySession {
  begin(): Promise<void>;
  /** Stops what the session arms for its deadline; called before the ROLLBACK. */
  disarm(): void;
  rollback(): Promise<void>;
}

function pgSession(client: PgClient, deadline: Deadline): DriverSession {
  // The remaining time for the next statement of the transaction.
  const limit = async (): Promise<void> => {
    const left = deadline.left();
    if (left !== undefined) await client.query(`SET LOCAL statement_timeout = ${Math.ceil(left)}`);
  };
  return {
    begin: async () => void (await client.query('BEGIN READ ONLY')),
    all: async (text, values) => {
      await limit();
      return (await client.query({ text, values: [...values], queryMode: 'extended' })).rows;
    },
    each: async (text, values, sink) => {
      await limit();
      // A newline before the statement: it may begin with a comment line.
      await client.query({ text: `DECLARE syncline_rows NO SCROLL CURSOR FOR\n${text}`, values: [...values], queryMode: 'extended' });
      let size = PG_BATCH_ROWS.first;
      for (;;) {
        await limit();
        const { rows } = await client.query(`FETCH FORWARD ${size} FROM syncline_rows`);
        for (const row of rows) if (!sink(row)) return;
        if (rows.length < size) return;
        const rowBytes = Math.max(1, JSON.stringify(rows[0]).length);
        size = Math.max(1, Math.min(PG_BATCH_ROWS.most, Math.floor(PG_BATCH_BYTES / rowBytes)));
      }
    },
    disarm: () => undefined,
    rollback: async () => void (await client.query('ROLLBACK')),
  };
}

function mysqlSession(connection: MysqlConnection, timeoutMs: number | undefined): DriverSession {
  const deadline = new Deadline(timeoutMs);
  let closed = false;
  // The server stops a statement at max_statement_time, except BENCHMARK() or SLEEP(), which
  // return early with no error. The server cannot stop a statement before its limit, so one that
  // took the whole limit timed out, whatever it answered.
  const timed = async <T>(run: () => Promise<T>): Promise<T> => {
    const left = deadline.left();
    if (left === undefined) return run();
    const limit = Math.max(1, Math.ceil(left));
    await setMysqlStatementTime(connection, limit);
    const started = performance.now();
    const result = await run();
    if (performance.now() - started >= limit) throw new DeadlinePassed();
    return result;
  };
  const each = (sql: string, values: readonly unknown[], sink: RowSink): Promise<void> =>
    new Promise((resolve, reject) => {
      let settled = false;
      const settle = (error?: unknown): void => {
        if (settled) return;
        settled = true;
        if (error === undefined) resolve();
        else reject(error);
      };
      const stop = (error?: unknown): void => {
        // The server goes on sending the rest of the result; only closing the socket ends it.
        closed = true;
        connection.destroy();
        connection.stream.destroy();
        settle(error);
      };
      connection
        .query({ sql, values: [...values] })
        .on('result', (row) => {
          if (settled) return;
          try {
            if (!sink(row)) stop();
          } catch (error) {
            stop(error);
          }
        })
        // After a stop the closed socket may still report an error; it is ours, and ignored.
        .on('error', (error) => settle(error))
        .on('end', () => settle());
    });
  return {
    // The session's time limit stays with the connection: what the last statement had left would
    // otherwise bound the next session's first statements, and this one's ROLLBACK.
    begin: async () => {
      if (timeoutMs !== undefined) await setMysqlStatementTime(connection, timeoutMs);
      await mysqlQuery(connection, 'SET SESSION TRANSACTION READ ONLY');
      await mysqlQuery(connection, 'START TRANSACTION READ ONLY');
    },
    all: (sql, values) => timed(() => mysqlQuery(connection, sql, values)),
    each: (sql, values, sink) => timed(() => each(sql, values, sink)),
    disarm: () => undefined,
    // A closed connection took its transaction with it.
    rollback: async () => {
      if (closed) return;
      if (timeoutMs !== undefined) await setMysqlStatementTime(connection, timeoutMs);
      await mysqlQuery(connection, 'ROLLBACK');
    },
  };
}

function sqliteSession(database: SqliteDatabase, timeoutMs: number | undefined): DriverSession {
  // SQLite has no statement timeout of its own: a timer interrupts whatever the session runs.
  const timer = timeoutMs === undefined ? undefined : interruptAfter(database, timeoutMs);
  const prepare = (sql: string, values: readonly unknown[]): Promise<SqliteStatement> =>
    new Promise((resolve, reject) => {
      const statement = database.prepare(sql, [...values], (error) => (error ? reject(error) : resolve(statement)));
    });
  return {
    begin: () => sqliteExec(database, 'PRAGMA query_only = ON; BEGIN'),
    all: async (sql, values) => {
      await sqliteExec(database, 'PRAGMA query_only = ON');
      return sqliteAll(database, sql, values);
    },
    each: async (sql, values, sink) => {
      await sqliteExec(database, 'PRAGMA query_only = ON');
      const statement = await prepare(sql, values);
      await new Promise<void>((resolve, reject) => {
        let failure: unknown;
        let stopped = false;
        // Rows, the statement's error and its end arrive on separate callbacks in no fixed order;
        // `complete` comes after the last row, `finalize` after the error: both mean done.
        let pending = 2;
        const done = (): void => {
          if (--pending > 0) return;
          const ownInterrupt = stopped && (failure as { code?: string } | undefined)?.code === 'SQLITE_INTERRUPT';
          if (failure !== undefined && !ownInterrupt) reject(failure);
          else resolve();
        };
        const stop = (error?: unknown): void => {
          stopped = true;
          if (error !== undefined) failure = error;
          database.interrupt();
        };
        statement.each((error, row) => {
          if (error) failure ??= error;
          else if (!stopped) {
            try {
              if (!sink(row)) stop();
            } catch (thrown) {
              stop(thrown);
            }
          }
        }, done);
        statement.finalize(done);
      });
    },
    disarm: () => timer?.stop(),
    rollback: () => sqliteExec(database, 'ROLLBACK'),
  };
}

function driverSession(dialect: Dialect, connection: unknown, timeoutMs: number | undefined): DriverSession {
  switch (dialect) {
    case 'postgres':
      return pgSession(connection as PgClient, new Deadline(timeoutMs));
    case 'mysql':
      return mysqlSession(connection as MysqlConnection, timeoutMs);
    case 'sqlite':
      return sqliteSession(connection as SqliteDatabase, timeoutMs);
  }
}

export interface SessionOptions {
  /** How long the whole session may run: its statements share this time. */
  timeoutMs?: number;
}

/** Runs `work` in a read-only session on a connection of `knex` (the query pool), then rolls back. */
export async function withReadOnlySession<T>(knex: Knex, dialect: Dialect, work: (session: ReadOnlySession) => Promise<T>, options: SessionOptions = {}): Promise<T> {
  const connection: unknown = await knex.client.acquireConnection();
  const session = driverSession(dialect, connection, options.timeoutMs);
  try {
    await session.begin();
    let result: T;
    try {
      result = await work(session);
    } catch (error) {
      session.disarm();
      // The statement's own error is the one to report; a failed rollback after it adds nothing.
      await session.rollback().catch(() => undefined);
      throw error;
    }
    session.disarm();
    await session.rollback();
    return result;
  } finally {
    session.disarm();
    await knex.client.releaseConnection(connection);
  }
}
