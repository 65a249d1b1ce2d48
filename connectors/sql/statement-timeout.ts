/**
 * limits.statementTimeout on each engine — every engine stops a statement its own way:
 *
 * - PostgreSQL: `statement_timeout`, set for the whole session of the read and query pools (a
 *   connection option), and per statement inside a free query's transaction (`SET LOCAL`) to the
 *   time the query has left, so a cursor's many FETCHes share one budget. The server cancels the
 *   statement (SQLSTATE 57014).
 * - MariaDB: `max_statement_time` (seconds) for the session; MySQL names it `max_execution_time`
 *   (milliseconds, SELECT only), so a connection that does not know the first takes the second. The
 *   server stops the statement (errno 1969 / 3024) — except that a function looping in the select
 *   list, `BENCHMARK()` or `SLEEP()`, merely returns early with a made-up value and no error, so a
 *   free query also checks the clock: one that took longer than the limit is a timeout whatever it
 *   answered.
 * - SQLite: no server to do it; a timer calls `sqlite3_interrupt` on the connection running the
 *   statement (SQLITE_INTERRUPT). Reads and counts go through SqliteTimedClient, which arms the timer
 *   around each statement; free queries arm it around their whole session (read-only-session.ts).
 *
 * Only reads and queries are timed: writes keep the data pool, untimed.
 */
import Client_SQLite3 from 'knex/lib/dialects/sqlite3/index.js';

/** A free query's session used up its time between statements, or a MariaDB statement ended after it. */
export class DeadlinePassed extends Error {
  constructor() {
    super('the statement timeout passed');
    this.name = 'DeadlinePassed';
  }
}

/** The time a free query's session has left; a statement must not start once it is spent. */
export class Deadline {
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

/** The connection option that sets PostgreSQL's statement_timeout for a session. */
export function pgStatementTimeoutOption(ms: number): string {
  return `-c statement_timeout=${Math.max(1, Math.round(ms))}`;
}

interface MysqlConnection {
  query(sql: string, callback: (error: (Error & { errno?: number }) | null) => void): void;
}

/** Which variable each MariaDB/MySQL connection takes: found out once per connection. */
const mysqlVariables = new WeakMap<object, 'max_statement_time' | 'max_execution_time'>();
const UNKNOWN_SYSTEM_VARIABLE = 1193;

function mysqlSet(connection: MysqlConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.query(sql, (error) => (error ? reject(error) : resolve())));
}

/** Sets the statement time limit of a MariaDB/MySQL session to `ms` (at least 1 ms). */
export async function setMysqlStatementTime(connection: MysqlConnection, ms: number): Promise<void> {
  const millis = Math.max(1, Math.round(ms));
  const statement = (variable: string) => (variable === 'max_statement_time' ? `SET SESSION max_statement_time = ${millis / 1000}` : `SET SESSION max_execution_time = ${millis}`);
  const known = mysqlVariables.get(connection);
  if (known !== undefined) return mysqlSet(connection, statement(known));
  try {
    await mysqlSet(connection, statement('max_statement_time'));
    mysqlVariables.set(connection, 'max_statement_time');
  } catch (error) {
    if ((error as { errno?: number }).errno !== UNKNOWN_SYSTEM_VARIABLE) throw error;
    await mysqlSet(connection, statement('max_execution_time'));
    mysqlVariables.set(connection, 'max_execution_time');
  }
}

interface SqliteDatabase {
  interrupt(): void;
}

/** Interrupts what `database` runs once `ms` have passed, unless stopped first; says whether it fired. */
export function interruptAfter(database: SqliteDatabase, ms: number): { stop(): void; readonly fired: boolean } {
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    database.interrupt();
  }, ms);
  return {
    stop: () => clearTimeout(timer),
    get fired() {
      return fired;
    },
  };
}

/** Knex's SQLite client, with each statement interrupted after `statementTimeoutMs` (a setting of its config). */
export class SqliteTimedClient extends Client_SQLite3 {
  override _query(connection: SqliteDatabase, query: unknown): Promise<unknown> {
    const ms = (this as unknown as { config: { statementTimeoutMs?: number } }).config.statementTimeoutMs;
    if (ms === undefined) return super._query(connection, query);
    const timer = interruptAfter(connection, ms);
    return (super._query(connection, query) as Promise<unknown>).finally(() => timer.stop());
  }
}
