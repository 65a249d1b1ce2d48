/**
 * Put records into the record store: each under a new GUID, for one sync (a webhook with the
 * record store enabled passes only the GUID on to the ad-hoc start).
 *
 *   INSERT INTO record_store (guid, sync_id, record, created_at) VALUES (?, ?, ?, ?), …
 *
 * in one transaction per call, so a batch is stored whole or not at all.
 */
import { randomUUID } from 'node:crypto';
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { chunks } from './stored-record.js';

function checkRecord(record: unknown, index: number): void {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new TypeError(
      `record store: record ${index + 1} must be a JSON object, not ${record === null ? 'null' : Array.isArray(record) ? 'an array' : typeof record}`,
    );
  }
}

/** Stores the records for `syncId`; answers their GUIDs, in the same order. */
export async function storeRecords(
  db: RuntimeDatabase,
  syncId: string,
  records: ReadonlyArray<Record<string, unknown>>,
  options: { now?: Date } = {},
): Promise<string[]> {
  records.forEach(checkRecord);
  const createdAt = toDatabaseTime(db.dialect, options.now ?? new Date());
  const rows = records.map((record) => ({ guid: randomUUID(), sync_id: syncId, record: JSON.stringify(record), created_at: createdAt }));
  if (rows.length === 0) return [];
  await writeTransaction(db, async (trx) => {
    // Four bindings per row.
    for (const batch of chunks(rows, 100)) await trx('record_store').insert(batch);
  });
  return rows.map((row) => row.guid);
}

/** Stores one record for `syncId`; answers its GUID. */
export async function storeRecord(
  db: RuntimeDatabase,
  syncId: string,
  record: Record<string, unknown>,
  options: { now?: Date } = {},
): Promise<string> {
  const [guid] = await storeRecords(db, syncId, [record], options);
  return guid!;
}
