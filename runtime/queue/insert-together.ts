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
import type { RuntimeDatabase } from '../database/open-database.js';
import { type Waiting, WriteTogether, writerOf } from '../database/write-together.js';

type Row = Record<string, unknown>;

/** Most rows in one statement: 18 columns each stays far below every engine's limit of bound values. */
const maxRows = 100;

type WaitingRow = Waiting<Row, Row>;

async function writeBatch(db: RuntimeDatabase, batch: WaitingRow[]): Promise<void> {
  let rows: Row[];
  try {
    rows = (await db
      .knex('queue_items')
      .insert(batch.map((entry) => entry.input))
      .returning('*')) as Row[];
  } catch (error) {
    if (batch.length === 1) return batch[0]!.reject(error);
    for (const entry of batch) {
      await db
        .knex('queue_items')
        .insert(entry.input)
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
  for (const entry of batch) settle(entry, byId.get(String(entry.input.id)));
}

function settle(entry: WaitingRow, row: Row | undefined): void {
  if (row === undefined) entry.reject(new Error(`queue item ${String(entry.input.id)} was inserted but not returned`));
  else entry.resolve(row);
}

const inserters = new WeakMap<RuntimeDatabase, WriteTogether<Row, Row>>();

/** Inserts one queue_items row, sharing the statement with rows inserted at the same time; answers the stored row. */
export function insertTogether(db: RuntimeDatabase, values: Row): Promise<Row> {
  return writerOf(
    inserters,
    db,
    (database) =>
      // Closing: rows not sent yet are refused at once (their callers see an error, as an ordinary insert would).
      new WriteTogether<Row, Row>(database, {
        lost: 'the queue item was not written',
        take: (waiting) => waiting.splice(0, maxRows),
        write: (batch) => writeBatch(database, batch),
      }),
  ).submit(values);
}
