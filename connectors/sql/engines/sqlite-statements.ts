/**
 * Prepared statements kept per SQLite connection, for Knex's SQLite clients (sqlite-clients.ts).
 *
 * Knex runs each query as `connection.all(sql, …)`, which makes a new statement, prepares it,
 * runs it and finalizes it. The making is the dear part: the driver wraps every statement in an
 * object with a finalizer and schedules its preparation as work of its own, so a sync reading an
 * empty page, or a queue daemon's no-op run, spent more of its time creating a statement than
 * running it. The texts a connection runs repeat (a sync's page query, a lookup, BEGIN and COMMIT),
 * so each connection keeps its most recent `cacheSize` statements and runs them again with new
 * values. Which queries may reuse a statement is the client's to say (sqlite-clients.ts).
 *
 * A statement that fails to prepare is not kept, and its error is the one SQLite gave, as before.
 * One that fails to run is reset before its error is passed on (sqlite-clients.ts): a write that
 * met SQLITE_BUSY is otherwise left active, and SQLite then refuses every later COMMIT on the
 * connection ("SQL statements in progress") — the runtime database's only connection.
 * Statements of one connection run one at a time in the order asked (the driver queues them),
 * whether or not they share a statement. Before a connection closes, its statements are finalized
 * — SQLite refuses to close a connection that has any.
 */

/** The driver's statement, as far as it is used here. */
export interface SqliteStatement {
  all(parameters: readonly unknown[], callback: (error: Error | null, rows: unknown[]) => void): void;
  reset(callback: () => void): void;
  finalize(callback: () => void): void;
}

/** The driver's connection, as far as it is used here. */
export interface SqliteStatementSource {
  prepare(sql: string, callback: (error: Error | null) => void): SqliteStatement;
}

/** Statements kept per connection, least recently used first. */
export const cacheSize = 64;

/** Per connection, by SQL text: the statement, or its preparation under way (so two runs of a new text share one). */
const statements = new WeakMap<SqliteStatementSource, Map<string, Promise<SqliteStatement>>>();

/** The prepared statement of `sql` on `connection`, prepared now unless kept. */
export function preparedStatement(connection: SqliteStatementSource, sql: string): Promise<SqliteStatement> {
  let kept = statements.get(connection);
  if (kept === undefined) {
    kept = new Map();
    statements.set(connection, kept);
  }
  const found = kept.get(sql);
  if (found !== undefined) {
    // Most recently used last: the first one is the next to go.
    kept.delete(sql);
    kept.set(sql, found);
    return found;
  }
  const cache = kept;
  const prepared = new Promise<SqliteStatement>((resolve, reject) => {
    const statement = connection.prepare(sql, (error) => {
      if (error === null) return resolve(statement);
      if (cache.get(sql) === prepared) cache.delete(sql);
      reject(error);
    });
  });
  cache.set(sql, prepared);
  if (cache.size > cacheSize) {
    const [oldest, dropped] = cache.entries().next().value as [string, Promise<SqliteStatement>];
    cache.delete(oldest);
    // The driver finalizes it after whatever it still has to run.
    dropped.then((statement) => statement.finalize(() => {})).catch(() => {});
  }
  return prepared;
}

/** Finalizes the statements kept for `connection`; before it closes. */
export async function finalizeStatements(connection: SqliteStatementSource): Promise<void> {
  const kept = statements.get(connection);
  statements.delete(connection);
  if (kept === undefined) return;
  const finalized = [...kept.values()].map((prepared) =>
    prepared.then(
      (statement) => new Promise<void>((resolve) => statement.finalize(resolve)),
      () => undefined,
    ),
  );
  await Promise.all(finalized);
}
