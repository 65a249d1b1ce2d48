/**
 * The Knex SQLite client, with every transaction started by `BEGIN IMMEDIATE`: the runtime
 * database's client, and the sql connector's for its write pool.
 *
 * Every such transaction writes. A deferred `BEGIN` starts as a reader and upgrades at the first
 * write; when another connection (another process on the same file) wrote in between, SQLite
 * answers SQLITE_BUSY at once instead of waiting the busy timeout. IMMEDIATE takes the write lock
 * at `BEGIN`, where the busy timeout applies, so writers queue up instead — and what a transaction
 * reads before it writes (the sql connector's match lookup) cannot change before it commits.
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
