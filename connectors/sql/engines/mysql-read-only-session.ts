/**
 * A read-only session of a free query on MariaDB/MySQL (read-only-session.ts says what it
 * promises): `START TRANSACTION READ ONLY` on a session set `READ ONLY` — the session setting
 * matters: DDL commits implicitly and would escape a read-only transaction alone. The driver
 * refuses a second statement (multipleStatements is off). Rows are mysql2's row events, handled as
 * they are parsed from the socket; stopping closes the connection (the only way to end a result
 * the server is still sending), which the pool then replaces.
 */
import type { DriverSession, Row, RowSink } from '../read-only-session.js';
import { Deadline, DeadlinePassed } from '../statement-timeout.js';
import { setMysqlStatementTime } from './mysql-statement-time.js';

interface MysqlQuery {
  on(event: 'result', listener: (row: Row) => void): MysqlQuery;
  on(event: 'error', listener: (error: Error) => void): MysqlQuery;
  on(event: 'end', listener: () => void): MysqlQuery;
}

export interface MysqlConnection {
  query(options: string | { sql: string; values: unknown[] }, callback?: (error: Error | null, rows?: unknown) => void): MysqlQuery;
  on(event: 'error', listener: (error: Error) => void): void;
  off(event: 'error', listener: (error: Error) => void): void;
  destroy(): void;
  stream: { destroy(): void };
}

function mysqlQuery(connection: MysqlConnection, sql: string, values: readonly unknown[] = []): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    connection.query({ sql, values: [...values] }, (error, rows) =>
      error ? reject(error) : resolve(Array.isArray(rows) ? (rows as Row[]) : []),
    );
  });
}

export function mysqlSession(connection: MysqlConnection, timeoutMs: number | undefined): DriverSession {
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
      // A connection lost mid-answer (or stopped by answer-guard.ts) is reported to the connection
      // only, not to a query read by its events, which would then wait forever.
      const lost = (error: Error): void => settle(error);
      const settle = (error?: unknown): void => {
        if (settled) return;
        settled = true;
        connection.off('error', lost);
        if (error === undefined) resolve();
        else reject(error);
      };
      connection.on('error', lost);
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
