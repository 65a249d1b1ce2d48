/**
 * A session in which the database itself refuses to write, for free queries. It runs on a raw
 * connection of the system's dedicated query pool (knex-client.ts, purpose 'query'), through the
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
 * `SELECT … INTO OUTFILE` write files even in read-only transactions when the user may).
 */
import type { Knex } from 'knex';
import type { Dialect } from './sql-dialect.js';

export type Row = Record<string, unknown>;

export interface ReadOnlySession {
  all(statement: string, bindings: readonly unknown[]): Promise<Row[]>;
}

interface PgClient {
  query(config: string | { text: string; values: unknown[]; queryMode: 'extended' }): Promise<{ rows: Row[] }>;
}
interface MysqlConnection {
  query(options: string | { sql: string; values: unknown[] }, callback: (error: Error | null, rows?: unknown) => void): void;
}
interface SqliteDatabase {
  exec(sql: string, callback: (error: Error | null) => void): void;
  all(sql: string, params: unknown[], callback: (error: Error | null, rows?: Row[]) => void): void;
}

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

interface DriverSession extends ReadOnlySession {
  begin(): Promise<void>;
  rollback(): Promise<void>;
}

function driverSession(dialect: Dialect, connection: unknown): DriverSession {
  switch (dialect) {
    case 'postgres': {
      const client = connection as PgClient;
      return {
        begin: async () => void (await client.query('BEGIN READ ONLY')),
        all: async (text, values) => (await client.query({ text, values: [...values], queryMode: 'extended' })).rows,
        rollback: async () => void (await client.query('ROLLBACK')),
      };
    }
    case 'mysql': {
      const client = connection as MysqlConnection;
      return {
        begin: async () => {
          await mysqlQuery(client, 'SET SESSION TRANSACTION READ ONLY');
          await mysqlQuery(client, 'START TRANSACTION READ ONLY');
        },
        all: (sql, values) => mysqlQuery(client, sql, values),
        rollback: async () => void (await mysqlQuery(client, 'ROLLBACK')),
      };
    }
    case 'sqlite': {
      const database = connection as SqliteDatabase;
      return {
        begin: () => sqliteExec(database, 'PRAGMA query_only = ON; BEGIN'),
        all: async (sql, values) => {
          await sqliteExec(database, 'PRAGMA query_only = ON');
          return sqliteAll(database, sql, values);
        },
        rollback: () => sqliteExec(database, 'ROLLBACK'),
      };
    }
  }
}

/** Runs `work` in a read-only session on a connection of `knex` (the query pool), then rolls back. */
export async function withReadOnlySession<T>(knex: Knex, dialect: Dialect, work: (session: ReadOnlySession) => Promise<T>): Promise<T> {
  const connection: unknown = await knex.client.acquireConnection();
  const session = driverSession(dialect, connection);
  try {
    await session.begin();
    let result: T;
    try {
      result = await work(session);
    } catch (error) {
      // The statement's own error is the one to report; a failed rollback after it adds nothing.
      await session.rollback().catch(() => undefined);
      throw error;
    }
    await session.rollback();
    return result;
  } finally {
    await knex.client.releaseConnection(connection);
  }
}
