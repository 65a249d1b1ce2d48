/**
 * Enqueues that arrive together share one statement (a group commit):
 *
 *   INSERT INTO queue_items (…) VALUES (…), (…), … RETURNING *
 *
 * The first row is written at once; rows that arrive while a statement runs wait for it and then
 * go together in the next one (at most `maxRows`). Every caller still gets its own row back only
 * after it is committed, so nothing is answered earlier than before. On SQLite, where each
 * statement takes the runtime database's one connection, ten webhook calls at once cost one turn
 * of it instead of ten.
 *
 * One statement is atomic: it writes all its rows or none. When the database refuses a shared
 * statement, each of its rows is written again on its own, so a row's error reaches only its own
 * caller.
 *
 * Only for PostgreSQL and SQLite (RETURNING), only for plain inserts on the database itself — not
 * inside a transaction, not for slot keys, whose conflict handling reads the holder back.
 */
import { RuntimeDatabaseClosedError } from '../database/database-failure.js';
import type { RuntimeDatabase } from '../database/open-database.js';

type Row = Record<string, unknown>;

interface Waiting {
  values: Row;
  resolve(row: Row): void;
  reject(error: unknown): void;
}

/** Most rows in one statement: 18 columns each stays far below every engine's limit of bound values. */
const maxRows = 100;

class InsertTogether {
  readonly #db: RuntimeDatabase;
  #waiting: Waiting[] = [];
  /** The write loop while it runs. */
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(db: RuntimeDatabase) {
    this.#db = db;
    // Closing the database: rows not sent yet are refused at once (their callers see an error, as
    // an ordinary insert would), and the statement being written finishes before the pool goes.
    db.onClose(async () => {
      this.#closed = true;
      for (const entry of this.#waiting.splice(0))
        entry.reject(new RuntimeDatabaseClosedError('the runtime database is closing; the queue item was not written'));
      await this.#running;
    });
  }

  insert(values: Row): Promise<Row> {
    return new Promise<Row>((resolve, reject) => {
      if (this.#closed) return reject(new RuntimeDatabaseClosedError('the runtime database is closed; the queue item was not written'));
      this.#waiting.push({ values, resolve, reject });
      this.#running ??= this.#run();
    });
  }

  async #run(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#write(this.#waiting.splice(0, maxRows));
    } finally {
      this.#running = undefined;
    }
  }

  async #write(batch: Waiting[]): Promise<void> {
    let rows: Row[];
    try {
      rows = (await this.#db
        .knex('queue_items')
        .insert(batch.map((entry) => entry.values))
        .returning('*')) as Row[];
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const entry of batch) {
        await this.#db
          .knex('queue_items')
          .insert(entry.values)
          .returning('*')
          .then(
            (alone: Row[]) => settle(entry, alone[0]),
            (aloneError: unknown) => entry.reject(aloneError),
          );
      }
      return;
    }
    // RETURNING promises no order of rows; the ids (chosen by the callers) match them up.
    const byId = new Map(rows.map((row) => [String(row.id), row]));
    for (const entry of batch) settle(entry, byId.get(String(entry.values.id)));
  }
}

function settle(entry: Waiting, row: Row | undefined): void {
  if (row === undefined) entry.reject(new Error(`queue item ${String(entry.values.id)} was inserted but not returned`));
  else entry.resolve(row);
}

const inserters = new WeakMap<RuntimeDatabase, InsertTogether>();

/** Inserts one queue_items row, sharing the statement with rows inserted at the same time; answers the stored row. */
export function insertTogether(db: RuntimeDatabase, values: Row): Promise<Row> {
  let inserter = inserters.get(db);
  if (inserter === undefined) {
    inserter = new InsertTogether(db);
    inserters.set(db, inserter);
  }
  return inserter.insert(values);
}
