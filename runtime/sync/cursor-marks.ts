/**
 * The high-water marks of syncs with a cursor (011-sync-cursors.ts), one row per sync.
 *
 * Each mark is of a field, a kind and a source (a digest of what the sync reads: sourceDigest);
 * a run whose cursor or source differs from the stored one's starts over with a full read.
 *
 * Read before a run:
 *   SELECT field, kind, mark, source FROM sync_cursors WHERE sync_id = ?
 *
 * Stored after a successful run, in one write transaction, so that two runs of one sync finishing
 * together cannot move the mark backwards — the later one compares with what the earlier one
 * stored, under its row lock:
 *   INSERT INTO sync_cursors (…) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sync_id) DO NOTHING
 *                                                        (MariaDB/MySQL: INSERT IGNORE)
 *   SELECT field, kind, mark, source FROM sync_cursors WHERE sync_id = ? FOR UPDATE   (not on SQLite)
 *   UPDATE sync_cursors SET field = ?, kind = ?, mark = ?, source = ?, updated_at = ? WHERE sync_id = ?
 *     — only when the stored mark is of another field, kind or source, lies below the new one, or the
 *       run was a full one (which starts the mark over).
 * Values are compared in the process (cursor-values.ts): a mark is text of a timestamp or of an
 * integer that may exceed a double, which no one SQL comparison orders on all three engines.
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { createHash } from 'node:crypto';
import type { SyncCursor } from '../../definitions/snapshot.js';
import type { SyncDefinition } from '../../definitions/types.js';
import { compareCursorValues } from './cursor-values.js';

export interface StoredMark {
  field: string;
  kind: string;
  mark: string;
  /** sourceDigest of the run that stored it; null for a mark from before migration 014. */
  source: string | null;
}

/**
 * What the sync reads, as a digest: its system, object, query or record store and `where`. The
 * mapping, target and match may change without a full read; the records past the mark do not.
 */
export function sourceDigest(sync: SyncDefinition): string {
  const { system, object, query, recordStore, where } = sync.source;
  const read = JSON.stringify([system ?? null, object ?? null, query ?? null, recordStore ?? false, where?.trim() ?? null]);
  return createHash('sha256').update(read).digest('hex').slice(0, 32);
}

/** Whether `stored` is a mark of this cursor and source (one from before sources were kept counts as this source's). */
function sameRange(stored: StoredMark, cursor: SyncCursor, source: string): boolean {
  return stored.field === cursor.field && stored.kind === cursor.type && (stored.source === null || stored.source === source);
}

/** The mark of `syncId`, when it has one of this field, kind and source (else the run starts over). */
export async function readMark(db: RuntimeDatabase, syncId: string, cursor: SyncCursor, source: string): Promise<string | undefined> {
  const row = (await db.knex('sync_cursors').select('field', 'kind', 'mark', 'source').where({ sync_id: syncId }).first()) as
    | StoredMark
    | undefined;
  return row !== undefined && sameRange(row, cursor, source) ? String(row.mark) : undefined;
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
  options: { full: boolean; source: string; now?: Date },
): Promise<string> {
  const now = toDatabaseTime(db.dialect, options.now ?? new Date());
  const values = { field: cursor.field, kind: cursor.type, mark, source: options.source, updated_at: now };
  return writeTransaction(db, async (trx) => {
    await trx('sync_cursors')
      .insert({ sync_id: syncId, ...values })
      .onConflict('sync_id')
      .ignore();
    const select = trx('sync_cursors').select('field', 'kind', 'mark', 'source').where({ sync_id: syncId });
    if (db.engine.rowLocks) select.forUpdate();
    const stored = (await select.first()) as StoredMark | undefined;
    if (stored === undefined) throw new Error(`the high-water mark of sync '${syncId}' was inserted but cannot be read back`);
    const same = sameRange(stored, cursor, options.source);
    if (same && String(stored.mark) === mark && stored.source === options.source) return mark;
    if (same && !options.full && compareCursorValues(cursor.type, String(stored.mark), mark) >= 0) return String(stored.mark);
    await trx('sync_cursors').update(values).where({ sync_id: syncId });
    return mark;
  });
}
