/**
 * One item by id, for GetAction and the daemon.
 *
 *   SELECT * FROM queue_items WHERE id = ?
 */
import type { RuntimeDatabase } from '../database/open-database.js';
import { isUuid } from '../database/column-values.js';
import { fromRow, type QueueRow } from './queue-item.js';

/** The item, or undefined when no item has this id (an id that is no UUID has none). */
export async function getItem(db: RuntimeDatabase, id: string): Promise<QueueRow | undefined> {
  if (!isUuid(id)) return undefined;
  const row = (await db.knex('queue_items').where({ id: id.toLowerCase() }).first()) as Record<string, unknown> | undefined;
  return row === undefined ? undefined : fromRow(row);
}
