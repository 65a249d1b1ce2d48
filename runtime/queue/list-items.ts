/**
 * The queue list: items newest first, filtered, a page at a time (GET /api/queue).
 *
 *   SELECT * FROM queue_items
 *    WHERE [process_id IN (?, …)]                 -- the sync filter and the client's allow-list
 *      [AND status IN (?, …)] [AND start_type = ?]
 *      [AND created_at >= ?] [AND created_at < ?]
 *      [AND finished_at >= ?] [AND finished_at < ?]  -- only finished items then
 *      [AND (created_at < ? OR (created_at = ? AND id < ?))]   -- after the cursor
 *    ORDER BY created_at DESC, id DESC
 *    LIMIT ? + 1
 *
 * Paged by keyset, never by OFFSET: the cursor is the (created_at, id) of the last item shown, and
 * the next page starts strictly below it. Items enqueued meanwhile are newer than every item
 * already shown, so they never push an item onto the next page a second time (what an offset
 * would do), and deleted ones leave no gap. `id` breaks ties of items created in the same
 * millisecond. One row more than the page tells whether there is a next page. The indexes
 * queue_items_list and queue_items_process_list (010-queue-listing.ts) have this order.
 *
 * The allow-list is a condition of the query itself, so every page is full of items the client may
 * see; filtering after the LIMIT would answer short or empty pages with more to come.
 */
import { fromRow, type QueueRow, type QueueStatus, type StartType } from './queue-item.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { toDatabaseTime } from '../database/timestamps.js';

/** A position in the list: the item after which the next page starts. */
export interface QueuePosition {
  createdAt: Date;
  id: string;
}

export interface QueueListQuery {
  /** Only items of these processes; undefined: any. An empty list matches nothing. */
  processIds?: readonly string[];
  statuses?: readonly QueueStatus[];
  startType?: StartType;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdTo?: Date;
  /** Finished (Complete or Failed) at or after; an unfinished item has no finish time and is left out. */
  finishedFrom?: Date;
  /** Finished before; an unfinished item is left out. */
  finishedTo?: Date;
  after?: QueuePosition;
  limit: number;
}

export interface QueuePage {
  items: QueueRow[];
  /** Where the next page starts; undefined on the last page. */
  next?: QueuePosition;
}

export async function listItems(db: RuntimeDatabase, query: QueueListQuery): Promise<QueuePage> {
  const time = (value: Date) => toDatabaseTime(db.dialect, value);
  const select = db.knex('queue_items').select('*');
  if (query.processIds !== undefined) {
    // `IN ()` is no valid SQL; a client allowed no process sees no item.
    if (query.processIds.length === 0) return { items: [] };
    select.whereIn('process_id', [...query.processIds]);
  }
  if (query.statuses !== undefined) select.whereIn('status', [...query.statuses]);
  if (query.startType !== undefined) select.where('start_type', query.startType);
  if (query.createdFrom !== undefined) select.where('created_at', '>=', time(query.createdFrom));
  if (query.createdTo !== undefined) select.where('created_at', '<', time(query.createdTo));
  // finished_at is NULL until the item ends, and NULL compares to nothing: unfinished items drop out.
  if (query.finishedFrom !== undefined) select.where('finished_at', '>=', time(query.finishedFrom));
  if (query.finishedTo !== undefined) select.where('finished_at', '<', time(query.finishedTo));
  const after = query.after;
  if (after !== undefined) {
    const at = time(after.createdAt);
    select.where((where) =>
      where.where('created_at', '<', at).orWhere((same) => same.where('created_at', at).andWhere('id', '<', after.id)),
    );
  }
  const rows = (await select
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(query.limit + 1)) as Array<Record<string, unknown>>;
  const items = rows.slice(0, query.limit).map(fromRow);
  const last = items.at(-1);
  return rows.length > query.limit && last !== undefined ? { items, next: { createdAt: last.createdAt, id: last.id } } : { items };
}
