/**
 * A session in which the database itself refuses to write, for free queries. It runs on a raw
 * connection of the system's dedicated query pool (purpose 'query'), through the driver directly,
 * so the statement reaches the database exactly as written — Knex would read every `?` in it as a
 * placeholder — and only the values of `#FlowFilter#` are bound. Each engine opens its own kind
 * (engines/postgres-read-only-session.ts and its siblings): read-only at the session or
 * transaction level, one statement per call.
 *
 * Each session ends with ROLLBACK. What the database cannot stop is left to its privileges: give
 * the system's user no rights beyond reading (PostgreSQL `COPY … TO PROGRAM` and MariaDB
 * `SELECT … INTO OUTFILE` write files even in read-only transactions when the user may; query.ts
 * refuses INTO before a statement is sent).
 *
 * Rows are handed over one by one as the database produces them (`each`), never collected here, so
 * the caller decides how many it keeps and stops the statement when it has enough.
 *
 * The session's whole run is bounded by `timeoutMs` (statement-timeout.ts): every statement of it
 * gets only the time left.
 */
import type { Knex } from 'knex';
import type { Engine } from './engines/index.js';

export type Row = Record<string, unknown>;

/** Takes one row; false stops the statement (no more rows are handed over). */
export type RowSink = (row: Row) => boolean;

export interface ReadOnlySession {
  all(statement: string, bindings: readonly unknown[]): Promise<Row[]>;
  /** Hands each row of the statement to `sink` as it arrives; resolves when it ended or `sink` stopped it. */
  each(statement: string, bindings: readonly unknown[], sink: RowSink): Promise<void>;
}

/** A read-only session as an engine opens it on one of its driver's connections. */
export interface DriverSession extends ReadOnlySession {
  begin(): Promise<void>;
  /** Stops what the session arms for its deadline; called before the ROLLBACK. */
  disarm(): void;
  rollback(): Promise<void>;
}

export interface SessionOptions {
  /** How long the whole session may run: its statements share this time. */
  timeoutMs?: number;
}

/** Runs `work` in a read-only session on a connection of `knex` (the query pool), then rolls back. */
export async function withReadOnlySession<T>(
  knex: Knex,
  engine: Engine,
  work: (session: ReadOnlySession) => Promise<T>,
  options: SessionOptions = {},
): Promise<T> {
  const connection: unknown = await knex.client.acquireConnection();
  const session = engine.readOnlySession(connection, options.timeoutMs);
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
