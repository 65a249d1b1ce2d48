/**
 * A read-only session of a free query on SQLite (read-only-session.ts says what it promises):
 * `PRAGMA query_only = ON`, set again before every statement (a statement could have turned it
 * off for the next one), inside a transaction so statement and count see one state. Rows come
 * from node-sqlite3's `each`, whose worker thread steps the statement while the rows are handed
 * over; stopping interrupts the statement. The worker runs somewhat ahead of the rows handed over
 * (those rows are dropped after a stop), by as much as it produces while the event loop is busy
 * elsewhere; query.ts bounds that with a LIMIT around the statement. Stepping with one `get` per
 * row would keep it from running ahead, but costs a thread hop per row: about 20 times slower.
 */
import type { DriverSession, Row } from '../read-only-session.js';
import { interruptAfter } from './sqlite-clients.js';

interface SqliteStatement {
  each(row: (error: (Error & { code?: string }) | null, row: Row) => void, complete: () => void): void;
  finalize(callback: () => void): void;
}

export interface SqliteDatabase {
  exec(sql: string, callback: (error: Error | null) => void): void;
  all(sql: string, params: unknown[], callback: (error: Error | null, rows?: Row[]) => void): void;
  prepare(sql: string, params: unknown[], callback: (error: Error | null) => void): SqliteStatement;
  interrupt(): void;
}

function sqliteExec(connection: SqliteDatabase, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function sqliteAll(connection: SqliteDatabase, sql: string, values: readonly unknown[]): Promise<Row[]> {
  return new Promise((resolve, reject) => connection.all(sql, [...values], (error, rows) => (error ? reject(error) : resolve(rows ?? []))));
}

export function sqliteSession(database: SqliteDatabase, timeoutMs: number | undefined): DriverSession {
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
