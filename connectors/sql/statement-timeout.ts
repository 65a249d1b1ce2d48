/**
 * limits.statementTimeout on each engine — every engine stops a statement its own way:
 *
 * - PostgreSQL: `statement_timeout`, set for the whole session of the read and query pools (a
 *   connection option, engines/postgres.ts), and per statement inside a free query's transaction
 *   (`SET LOCAL`) to the time the query has left, so a cursor's many FETCHes share one budget. The
 *   server cancels the statement (SQLSTATE 57014).
 * - MariaDB: `max_statement_time` (seconds) for the session; MySQL names it `max_execution_time`
 *   (milliseconds, SELECT only), so a connection that does not know the first takes the second
 *   (engines/mysql-statement-time.ts). The server stops the statement (errno 1969 / 3024) — except
 *   that a function looping in the select list, `BENCHMARK()` or `SLEEP()`, merely returns early
 *   with a made-up value and no error, so a free query also checks the clock: one that took longer
 *   than the limit is a timeout whatever it answered.
 * - SQLite: no server to do it; a timer calls `sqlite3_interrupt` on the connection running the
 *   statement (SQLITE_INTERRUPT). Reads and counts go through SqliteTimedClient, which arms the
 *   timer around each statement; free queries arm it around their whole session
 *   (engines/sqlite-clients.ts, engines/sqlite-read-only-session.ts).
 *
 * Only reads and queries are timed: writes keep the data pool, untimed. What every engine shares
 * is here: the time a free query's session has left, and the error when it is spent.
 */
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
