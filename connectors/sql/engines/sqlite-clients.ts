/**
 * Knex's SQLite client, twice adapted.
 *
 * SqliteImmediateClient starts every transaction with `BEGIN IMMEDIATE`: the runtime database's
 * client, and the sql connector's for its write pool.
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

class ImmediateTransaction extends Transaction_Sqlite {
  override begin(connection: unknown): Promise<unknown> {
    return this.query(connection, 'BEGIN IMMEDIATE;');
  }
}

export class SqliteImmediateClient extends Client_SQLite3 {
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
export class SqliteTimedClient extends Client_SQLite3 {
  override _query(connection: SqliteDatabase, query: unknown): Promise<unknown> {
    const ms = (this as unknown as { config: { statementTimeoutMs?: number } }).config.statementTimeoutMs;
    if (ms === undefined) return super._query(connection, query);
    const timer = interruptAfter(connection, ms);
    return (super._query(connection, query) as Promise<unknown>).finally(() => timer.stop());
  }
}
