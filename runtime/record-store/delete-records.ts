/**
 * Delete records from the record store by GUID (a flow removes the entries it used after success).
 *
 *   DELETE FROM record_store WHERE guid IN (?, …) [AND sync_id = ?]
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { chunks, possibleGuids } from './stored-record.js';

/** Deletes the records with these GUIDs (only those of `syncId` when given); answers how many there were. */
export async function deleteRecords(db: RuntimeDatabase, guids: readonly string[], syncId?: string): Promise<number> {
  let deleted = 0;
  for (const batch of chunks(possibleGuids(guids))) {
    const query = db.knex('record_store').whereIn('guid', batch);
    if (syncId !== undefined) query.andWhere('sync_id', syncId);
    deleted += await query.delete();
  }
  return deleted;
}
