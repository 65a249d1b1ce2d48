/**
 * The Knex SQLite client, with every transaction started by `BEGIN IMMEDIATE`.
 *
 * Every transaction on the runtime database writes. A deferred `BEGIN` starts as a reader and
 * upgrades at the first write; when another connection (another process on the same file) wrote
 * in between, SQLite answers SQLITE_BUSY at once instead of waiting the busy timeout. IMMEDIATE
 * takes the write lock at `BEGIN`, where the busy timeout applies, so writers queue up instead.
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
