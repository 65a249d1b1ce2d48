/**
 * The Knex classes engines/sqlite-clients.ts extends.
 * Knex exports them only as files, so their types are declared here (just what is used).
 */
declare module 'knex/lib/dialects/sqlite3/index.js' {
  import type { Knex } from 'knex';

  class Client_SQLite3 extends Knex.Client {
    _query(connection: unknown, query: unknown): Promise<unknown>;
    destroyRawConnection(connection: unknown): Promise<void>;
  }
  export default Client_SQLite3;
}

declare module 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js' {
  import type { Knex } from 'knex';

  class Transaction_Sqlite {
    constructor(client: Knex.Client, container: unknown, config: unknown, outerTx: unknown);
    begin(connection: unknown): Promise<unknown>;
    query(connection: unknown, sql: string): Promise<unknown>;
  }
  export default Transaction_Sqlite;
}
