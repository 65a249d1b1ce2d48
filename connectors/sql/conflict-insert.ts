/**
 * Creates that let a unique index arbitrate: for writes matching on exactly the columns of a
 * unique index (unique-keys.ts), the INSERT carries a conflict clause on those columns, so when
 * another transaction created a record with the same values since the lookup, the row is not
 * inserted (and nothing fails) — the caller then looks the record up again and updates it or
 * leaves it, as a match. Two concurrent creates of one key thus give one record, one "created"
 * and one "updated", never a constraint error.
 *
 * - PostgreSQL: `INSERT … ON CONFLICT (columns) DO NOTHING RETURNING key`; the rows returned are
 *   the ones inserted. The conflict waits for the other transaction to end, and the lookup after
 *   it (READ COMMITTED) sees its record.
 * - MariaDB/MySQL: `INSERT … ON DUPLICATE KEY UPDATE c = c` (c the first of the columns), which
 *   changes nothing on a conflict; the data pool counts affected rows (engines/mysql.ts), so the
 *   statement's count is the number of rows inserted. It reacts to any unique index: a conflict on
 *   another one (the primary key) is found by the caller's second lookup to be no match, and the
 *   plain insert that follows fails with the database's own refusal, as it always did.
 *
 * Nothing is written here on SQLite, whose writes need no arbiter (match-locks.ts says why).
 */
import type { Knex } from 'knex';
import type { Row } from './prepare-write.js';
import type { ObjectScope } from './record-query.js';

export interface ConflictInsert {
  /** How many of the rows were inserted; the others met an existing record. */
  inserted: number;
  /** PostgreSQL with `returning`: the key of each row inserted. */
  keys: Row[];
  /** MariaDB/MySQL: the generated id of the first row inserted, if any. */
  insertId: number | undefined;
}

/** Inserts `rows` unless a record with their values in `columns` exists; `keys` only when `returning`. */
export async function insertUnlessConflict(
  trx: Knex.Transaction,
  scope: ObjectScope,
  rows: readonly Row[],
  columns: readonly string[],
  returning: boolean,
): Promise<ConflictInsert> {
  const { object } = scope;
  const insert = trx(object.table).insert(rows as Row[]);
  if (scope.engine.name === 'postgres') {
    if (returning) {
      const keys = (await insert
        .onConflict([...columns])
        .ignore()
        .returning([...object.key])) as Row[];
      return { inserted: keys.length, keys, insertId: undefined };
    }
    // The count of rows inserted, without sending their keys back.
    const statement = insert
      .onConflict([...columns])
      .ignore()
      .toSQL();
    const result = (await trx.raw(statement.sql, statement.bindings)) as { rowCount: number | null };
    return { inserted: result.rowCount ?? 0, keys: [], insertId: undefined };
  }
  const first = columns[0]!;
  const statement = insert
    .onConflict([...columns])
    .merge({ [first]: trx.ref(first) })
    .toSQL();
  const [header] = (await trx.raw(statement.sql, statement.bindings)) as [{ affectedRows: number; insertId: number }];
  return { inserted: header.affectedRows, keys: [], insertId: header.insertId === 0 ? undefined : header.insertId };
}
