/**
 * Read the record store: a sync's records page by page in arrival order, or given records by GUID.
 * Pages continue after the last record read (keyset), so records deleted meanwhile shift nothing.
 *
 *   SELECT * FROM record_store
 *    WHERE sync_id = ? [AND (created_at > ? OR (created_at = ? AND guid > ?))]
 *    ORDER BY created_at, guid
 *    LIMIT ?
 *   SELECT * FROM record_store WHERE guid IN (?, …) [AND sync_id = ?]
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { chunks, fromRecordRow, possibleGuids, type StoredRecord } from './stored-record.js';

/** Where the next page starts: after this record. */
export interface RecordCursor {
  createdAt: Date;
  guid: string;
}

export interface RecordPage {
  records: StoredRecord[];
  /** Pass as `after` for the next page; null after the last page. */
  next: RecordCursor | null;
}

/** One page of the records of `syncId`, oldest first. */
export async function readRecords(
  db: RuntimeDatabase,
  options: { syncId: string; limit: number; after?: RecordCursor },
): Promise<RecordPage> {
  if (!Number.isInteger(options.limit) || options.limit < 1)
    throw new RangeError(`record store: limit must be a whole number of at least 1, not ${options.limit}`);
  const query = db.knex('record_store').where('sync_id', options.syncId);
  const after = options.after;
  if (after !== undefined) {
    const createdAt = toDatabaseTime(db.dialect, after.createdAt);
    query.andWhere((where) =>
      where.where('created_at', '>', createdAt).orWhere((same) => same.where('created_at', createdAt).andWhere('guid', '>', after.guid)),
    );
  }
  const rows = (await query.orderBy([{ column: 'created_at' }, { column: 'guid' }]).limit(options.limit)) as Array<Record<string, unknown>>;
  const records = rows.map(fromRecordRow);
  const last = records.at(-1);
  return { records, next: records.length === options.limit && last !== undefined ? { createdAt: last.createdAt, guid: last.guid } : null };
}

/** The records with these GUIDs (only those of `syncId` when given), in arrival order; unknown GUIDs are left out. */
export async function readRecordsByGuid(db: RuntimeDatabase, guids: readonly string[], syncId?: string): Promise<StoredRecord[]> {
  const found: StoredRecord[] = [];
  for (const batch of chunks(possibleGuids(guids))) {
    const query = db.knex('record_store').whereIn('guid', batch);
    if (syncId !== undefined) query.andWhere('sync_id', syncId);
    found.push(...((await query) as Array<Record<string, unknown>>).map(fromRecordRow));
  }
  return found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.guid < b.guid ? -1 : 1));
}
