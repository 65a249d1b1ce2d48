/**
 * Knex's SQLite client, adapted three times.
 *
 * SqliteStatementClient runs each query with a prepared statement the connection keeps
 * (sqlite-statements.ts) instead of preparing and finalizing one per query. The two below are
 * made from it.
 *
 * SqliteImmediateClient starts every transaction with `BEGIN IMMEDIATE`, and rolls back one whose
 * COMMIT failed: the sql connector's client for its write pool, and the runtime database's, which
 * also stops at a file deleted under it (sqlite-file-guard.ts).
 *
 * Every such transaction writes. A deferred `BEGIN` starts as a reader and upgrades at the first
 * write; when another connection (another process on the same file) wrote in between, SQLite
 * answers SQLITE_BUSY at once instead of waiting the busy timeout. IMMEDIATE takes the write lock
 * at `BEGIN`, where the busy timeout applies, so writers queue up instead — and what a transaction
 * reads before it writes (the sql connector's match lookup) cannot change before it commits.
 *
 * SqliteTimedClient stops each statement at a System's statement timeout, for its read pool
 * (statement-timeout.ts says how each engine stops a statement): with no server to stop it, a
 * timer calls `sqlite3_interrupt` on the connection running the statement, which then fails with
 * SQLITE_INTERRUPT.
 */
import Client_SQLite3 from 'knex/lib/dialects/sqlite3/index.js';
import Transaction_Sqlite from 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js';
import { finalizeStatements, preparedStatement, type SqliteStatementSource } from './sqlite-statements.js';

/** What Knex hands its client's `_query`: the compiled query, on which the answer is left. */
interface KnexQuery {
  sql: string;
  bindings?: readonly unknown[];
  method?: string;
  returning?: unknown;
  response?: unknown;
}

/** Whether Knex reads the query's rows (`all`) or only its effect, lastID and changes (`run`), as its own client decides. */
function readsRows(query: KnexQuery): boolean {
  switch (query.method) {
    case 'insert':
    case 'update':
      return Boolean(query.returning);
    case 'counter':
    case 'del':
      return false;
    default:
      return true;
  }
}

/**
 * Whether a statement kept for reuse is done with once it has answered. A statement is left
 * active, holding its transaction open (COMMIT then fails, "SQL statements in progress"), until it
 * is reset: after `run`, which steps it once (a RETURNING clause would have more to give), and
 * after an EXPLAIN of a write, even once it answered everything. Such queries get a statement of
 * their own, finalized at once, as Knex gives every query.
 */
function reusable(query: KnexQuery): boolean {
  return readsRows(query) && !/^\s*EXPLAIN\b/i.test(query.sql);
}

export class SqliteStatementClient extends Client_SQLite3 {
  override async _query(connection: unknown, query: unknown): Promise<unknown> {
    const knexQuery = query as KnexQuery;
    if (!knexQuery.sql || !reusable(knexQuery)) return super._query(connection, query);
    const statement = await preparedStatement(connection as SqliteStatementSource, knexQuery.sql);
    return new Promise((resolve, reject) => {
      statement.all(knexQuery.bindings ?? [], (error, rows) => {
        // A failed run (SQLITE_BUSY above all) leaves the statement active until it is reset, and
        // an active write makes every later COMMIT of the connection fail (sqlite-statements.ts).
        if (error !== null) return statement.reset(() => reject(error));
        knexQuery.response = rows;
        resolve(knexQuery);
      });
    });
  }

  override async destroyRawConnection(connection: unknown): Promise<void> {
    await finalizeStatements(connection as SqliteStatementSource);
    await super.destroyRawConnection(connection);
  }
}

class ImmediateTransaction extends Transaction_Sqlite {
  override begin(connection: unknown): Promise<unknown> {
    return this.query(connection, 'BEGIN IMMEDIATE;');
  }
}

interface SqliteExec {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

/**
 * A COMMIT SQLite refused (SQLITE_BUSY) leaves its transaction open, and Knex does not roll it
 * back: every later statement of the connection would run inside it, never committed, and every
 * BEGIN fail. The transaction is rolled back, so its writes are undone as its caller is told; a
 * connection that cannot even roll back is marked for the pool to replace (Knex's own mark).
 */
async function rollbackAfterFailedCommit(connection: unknown): Promise<void> {
  const rolledBack = await new Promise<boolean>((resolve) =>
    (connection as SqliteExec).exec('ROLLBACK', (error) => resolve(error === null)),
  );
  if (!rolledBack) (connection as { __knex__disposed?: unknown }).__knex__disposed = new Error('a failed COMMIT could not be rolled back');
}

export class SqliteImmediateClient extends SqliteStatementClient {
  override async _query(connection: unknown, query: unknown): Promise<unknown> {
    try {
      return await super._query(connection, query);
    } catch (error) {
      if (/^\s*COMMIT\b/i.test((query as KnexQuery).sql ?? '')) await rollbackAfterFailedCommit(connection);
      throw error;
    }
  }

  override transaction(container: unknown, config: unknown, outerTx: unknown): never {
    return new ImmediateTransaction(this, container, config, outerTx) as never;
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
export class SqliteTimedClient extends SqliteStatementClient {
  override _query(connection: SqliteDatabase, query: unknown): Promise<unknown> {
    const ms = (this as unknown as { config: { statementTimeoutMs?: number } }).config.statementTimeoutMs;
    if (ms === undefined) return super._query(connection, query);
    const timer = interruptAfter(connection, ms);
    return (super._query(connection, query) as Promise<unknown>).finally(() => timer.stop());
  }
}
