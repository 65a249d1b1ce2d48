/**
 * A transaction that writes. SQLite: `BEGIN IMMEDIATE` (the runtime's SQLite client always
 * begins so), so the write lock is taken first and concurrent writers wait their turn.
 * MariaDB/MySQL: READ COMMITTED, so `SELECT … FOR UPDATE` locks the rows it returns and no gaps
 * between them (REPEATABLE READ would also lock index gaps and hold up concurrent enqueues).
 * PostgreSQL: its default, READ COMMITTED.
 *
 * A transaction the database chose as a deadlock victim (or could not serialize) is run again, a
 * few times, after a short random pause: nothing was written, and the queue operations do
 * nothing but database work inside their transactions, so running again is safe.
 */
import type { Knex } from 'knex';
import { isTransientConflict } from '../../connectors/sql/database-errors.js';
import type { RuntimeDatabase } from './open-database.js';

const attempts = 4;

export async function writeTransaction<T>(db: RuntimeDatabase, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.knex.transaction(work, db.engine.writeTransaction);
    } catch (error) {
      if (attempt >= attempts || !isTransientConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
