/**
 * The high-water marks of syncs with a cursor (011-sync-cursors.ts), one row per sync.
 *
 * Read before a run:
 *   SELECT field, kind, mark FROM sync_cursors WHERE sync_id = ?
 *
 * Stored after a successful run, in one write transaction, so that two runs of one sync finishing
 * together cannot move the mark backwards — the later one compares with what the earlier one
 * stored, under its row lock:
 *   INSERT INTO sync_cursors (…) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sync_id) DO NOTHING
 *                                                        (MariaDB/MySQL: INSERT IGNORE)
 *   SELECT field, kind, mark FROM sync_cursors WHERE sync_id = ? FOR UPDATE   (not on SQLite)
 *   UPDATE sync_cursors SET field = ?, kind = ?, mark = ?, updated_at = ? WHERE sync_id = ?
 *     — only when the stored mark is of another field or kind, lies below the new one, or the
 *       run was a full one (which starts the mark over).
 * Values are compared in the process (cursor-values.ts): a mark is text of a timestamp or of an
 * integer that may exceed a double, which no one SQL comparison orders on all three engines.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import type { SyncCursor } from '../../definitions/snapshot.js';
import { compareCursorValues } from './cursor-values.js';

export interface StoredMark {
  field: string;
  kind: string;
  mark: string;
}

/** The mark of `syncId`, when it has one of this field and kind (else the run starts over). */
export async function readMark(db: RuntimeDatabase, syncId: string, cursor: SyncCursor): Promise<string | undefined> {
  const row = (await db.knex('sync_cursors').select('field', 'kind', 'mark').where({ sync_id: syncId }).first()) as StoredMark | undefined;
  return row !== undefined && row.field === cursor.field && row.kind === cursor.type ? String(row.mark) : undefined;
}

/**
 * Stores `mark` for `syncId`: as it is after a full run, else only where it moves the mark forward.
 * Answers the mark the row holds afterwards.
 */
export async function storeMark(
  db: RuntimeDatabase,
  syncId: string,
  cursor: SyncCursor,
  mark: string,
  options: { full: boolean; now?: Date },
): Promise<string> {
  const now = toDatabaseTime(db.dialect, options.now ?? new Date());
  const values = { field: cursor.field, kind: cursor.type, mark, updated_at: now };
  return writeTransaction(db, async (trx) => {
    await trx('sync_cursors')
      .insert({ sync_id: syncId, ...values })
      .onConflict('sync_id')
      .ignore();
    const select = trx('sync_cursors').select('field', 'kind', 'mark').where({ sync_id: syncId });
    if (db.engine.rowLocks) select.forUpdate();
    const stored = (await select.first()) as StoredMark | undefined;
    if (stored === undefined) throw new Error(`the high-water mark of sync '${syncId}' was inserted but cannot be read back`);
    const same = stored.field === cursor.field && stored.kind === cursor.type;
    if (same && String(stored.mark) === mark) return mark;
    if (same && !options.full && compareCursorValues(cursor.type, String(stored.mark), mark) >= 0) return String(stored.mark);
    await trx('sync_cursors').update(values).where({ sync_id: syncId });
    return mark;
  });
}
