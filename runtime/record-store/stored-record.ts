/** A record in the record store, as read back. */
import { fromDatabaseTime } from '../database/timestamps.js';
import { fromJsonColumn, isUuid } from '../database/column-values.js';

export interface StoredRecord {
  guid: string;
  syncId: string;
  record: Record<string, unknown>;
  createdAt: Date;
}

export function fromRecordRow(row: Record<string, unknown>): StoredRecord {
  return {
    guid: String(row.guid),
    syncId: String(row.sync_id),
    record: fromJsonColumn(row.record) as Record<string, unknown>,
    createdAt: fromDatabaseTime(row.created_at),
  };
}

/** The GUIDs that can exist (see isUuid), lower-cased, each once. */
export function possibleGuids(guids: readonly string[]): string[] {
  return [...new Set(guids.filter(isUuid).map((guid) => guid.toLowerCase()))];
}

/** Bindings per statement: far below every engine's limit (SQLite's is 32766). */
export const chunkSize = 500;

export function chunks<T>(items: readonly T[], size = chunkSize): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
