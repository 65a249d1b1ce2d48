/**
 * Enqueue: a new Pending item.
 *
 *   INSERT INTO queue_items (id, process_id, start_type, source_id, where_clause, action_params,
 *     status, attempts, max_attempts, run_after, created_at, errors, slot_key,
 *     concurrency_key, concurrency_limit, request_id, retry_of)
 *   VALUES (?, ?, ?, ?, ?, ?, 'Pending', 0, ?, ?, ?, '[]', ?, ?, ?, ?, ?)
 *
 * With a slot key (schedules), a second insert of the same slot does nothing:
 *   PostgreSQL, SQLite: … ON CONFLICT (slot_key) DO NOTHING
 *   MariaDB/MySQL:      INSERT IGNORE …  (the values are checked first, since IGNORE would
 *                       also turn a too-long value into a silent truncation)
 *
 * PostgreSQL and SQLite answer with the stored row in the same statement (… RETURNING *): one
 * statement is atomic, so a single enqueue needs no transaction and, on SQLite, takes the one
 * connection once instead of four times (BEGIN, INSERT, SELECT, COMMIT). Only when the slot was
 * already held (no row returned), and always on MariaDB/MySQL, the item is read back:
 *   SELECT * FROM queue_items WHERE id = ?   (or WHERE slot_key = ?)
 * `created` tells whether it is ours. Then waiting daemons are woken (notify.ts).
 *
 * A plain insert on the database itself (not in a transaction, no slot key) shares its statement
 * with the enqueues made at the same time (insert-together.ts).
 *
 * An item with a concurrency limit carries its key and limit (the claim enforces them). When its
 * policy is skip or fail, the key's items in line are counted first, and an item that finds the
 * limit reached is stored already finished, with a note saying why it did not run. Count and
 * insert take turns with every claim and every other such enqueue — in one write transaction
 * holding the claim lock (claim.ts) — or six starts at once would all count the same zero:
 *   SELECT name FROM queue_locks WHERE name = 'claim' FOR UPDATE        (not on SQLite)
 *   SELECT (SELECT COUNT(*) FROM queue_items WHERE status = 'Pending' AND concurrency_key = ?)
 *        + (SELECT COUNT(*) FROM queue_items WHERE status = 'InProgress' AND concurrency_key = ?) AS active
 *   INSERT INTO queue_items (…) VALUES (…)
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { RuntimeDatabase } from '../database/open-database.js';
import { rawRows } from '../database/raw-rows.js';
import { toDatabaseTime } from '../database/timestamps.js';
import { writeTransaction } from '../database/write-transaction.js';
import { lockClaims } from './claim.js';
import { insertTogether } from './insert-together.js';
import { announceWork } from './notify.js';
import { fromRow, startTypes, type ActionParam, type QueueConcurrency, type QueueRow, type StartType } from './queue-item.js';

export interface NewQueueItem {
  processId: string;
  startType: StartType;
  sourceId?: string;
  whereClause?: string;
  actionParams?: readonly ActionParam[];
  /** Attempts allowed in all: the sync's retries + 1 (default 1, no retry). */
  maxAttempts?: number;
  /** Not before this time (default: now). */
  runAfter?: Date;
  /** One item per key across all processes (schedule-slot.ts builds it). */
  slotKey?: string;
  /** The sync's or flow's concurrency limit (execution/concurrency-of.ts); none: no limit. */
  concurrency?: QueueConcurrency;
  /** The HTTP request that starts it (http/request-id.ts), kept for the run's log lines. */
  requestId?: string;
  /** The Failed item this one retries (a retry through the HTTP interface). */
  retryOf?: string;
}

export interface EnqueueResult {
  item: QueueRow;
  /** False when an item already held the slot key; `item` is that one. */
  created: boolean;
}

/** Longest values the columns hold (001-queue-items.ts). */
const limits = { processId: 128, slotKey: 255, concurrencyKey: 200, requestId: 128 } as const;

/** Refuses what the table would refuse or truncate, with a message naming the field. */
function checkItem(item: NewQueueItem): void {
  if (item.processId === '' || item.processId.length > limits.processId) {
    throw new RangeError(`queue item: processId must have 1 to ${limits.processId} characters, not ${item.processId.length}`);
  }
  if (!startTypes.includes(item.startType))
    throw new RangeError(`queue item: startType '${item.startType}' is not one of ${startTypes.join(', ')}`);
  const maxAttempts = item.maxAttempts ?? 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new RangeError(`queue item: maxAttempts must be a whole number of at least 1, not ${maxAttempts}`);
  if (item.slotKey !== undefined && (item.slotKey === '' || item.slotKey.length > limits.slotKey)) {
    throw new RangeError(`queue item: slotKey must have 1 to ${limits.slotKey} characters, not ${item.slotKey.length}`);
  }
  const concurrency = item.concurrency;
  if (concurrency !== undefined) {
    if (concurrency.key === '' || concurrency.key.length > limits.concurrencyKey)
      throw new RangeError(`queue item: concurrency key must have 1 to ${limits.concurrencyKey} characters`);
    if (!Number.isInteger(concurrency.limit) || concurrency.limit < 1)
      throw new RangeError(`queue item: concurrency limit must be a whole number of at least 1, not ${concurrency.limit}`);
  }
}

/** The note on an item that was not run because its key was at its limit (skip or fail). */
export function limitNote(concurrency: QueueConcurrency, active: number): string {
  const runs = `${active} run${active === 1 ? '' : 's'}`;
  const what = concurrency.key.startsWith('group:')
    ? `concurrency group '${concurrency.key.slice('group:'.length)}'`
    : `'${concurrency.key.replace(/^process:/, '')}'`;
  return `not run: ${what} already had ${runs} in progress or waiting, and its concurrency limit is ${concurrency.limit} (onLimit: ${concurrency.onLimit})`;
}

/**
 * Items of `key` waiting or running: what a skip or fail policy compares with the limit. Counted
 * per status, so each count reads its own index on PostgreSQL (migration 013's waiting and
 * running keys), not every item of both states.
 */
async function activeItems(executor: Knex, key: string): Promise<number> {
  const [row] = rawRows(
    await executor.raw(
      `SELECT (SELECT COUNT(*) FROM queue_items WHERE status = 'Pending' AND concurrency_key = ?)
            + (SELECT COUNT(*) FROM queue_items WHERE status = 'InProgress' AND concurrency_key = ?) AS active`,
      [key, key],
    ),
  );
  return Number(row?.active ?? 0);
}

/** An item stored already finished: its key was at its limit under a skip or fail policy. */
interface NotRun {
  status: 'Complete' | 'Failed';
  note: string;
}

/**
 * Inserts the item on `executor` (the database or a transaction) and answers the one that holds
 * its id or slot; announcing is the caller's part.
 */
export async function insertItem(db: RuntimeDatabase, executor: Knex, item: NewQueueItem, now: Date): Promise<EnqueueResult> {
  checkItem(item);
  const { concurrency } = item;
  if (concurrency === undefined || concurrency.onLimit === 'wait') return insertRow(db, executor, item, now, undefined);
  const limited = async (trx: Knex): Promise<EnqueueResult> => {
    await lockClaims(db, trx);
    const active = await activeItems(trx, concurrency.key);
    const notRun: NotRun | undefined =
      active >= concurrency.limit
        ? { status: concurrency.onLimit === 'skip' ? 'Complete' : 'Failed', note: limitNote(concurrency, active) }
        : undefined;
    return insertRow(db, trx, item, now, notRun);
  };
  return executor === db.knex ? writeTransaction(db, limited) : limited(executor);
}

async function insertRow(
  db: RuntimeDatabase,
  executor: Knex,
  item: NewQueueItem,
  now: Date,
  notRun: NotRun | undefined,
): Promise<EnqueueResult> {
  const id = randomUUID();
  const time = (value: Date) => toDatabaseTime(db.dialect, value);
  const { concurrency } = item;
  const values = {
    id,
    process_id: item.processId,
    start_type: item.startType,
    source_id: item.sourceId ?? null,
    where_clause: item.whereClause ?? null,
    action_params: item.actionParams === undefined ? null : JSON.stringify(item.actionParams),
    status: notRun?.status ?? 'Pending',
    attempts: 0,
    max_attempts: item.maxAttempts ?? 1,
    run_after: time(item.runAfter ?? now),
    created_at: time(now),
    finished_at: notRun === undefined ? null : time(now),
    errors: notRun === undefined ? '[]' : JSON.stringify([{ message: notRun.note, at: now.toISOString() }]),
    slot_key: item.slotKey ?? null,
    concurrency_key: concurrency?.key ?? null,
    concurrency_limit: concurrency?.limit ?? null,
    // Longer ids never pass the HTTP edge; cut rather than refused, since it is only a log field.
    request_id: item.requestId?.slice(0, limits.requestId) ?? null,
    retry_of: item.retryOf ?? null,
  };
  if (executor === db.knex && item.slotKey === undefined && db.engine.returning) {
    return { item: fromRow(await insertTogether(db, values)), created: true };
  }
  const insert = executor('queue_items').insert(values);
  const statement = item.slotKey === undefined ? insert : insert.onConflict('slot_key').ignore();
  if (db.engine.returning) {
    const [returned] = (await statement.returning('*')) as Array<Record<string, unknown>>;
    if (returned !== undefined) return { item: fromRow(returned), created: true };
  } else await statement;

  const stored = await executor('queue_items')
    .where(item.slotKey === undefined ? { id } : { slot_key: item.slotKey })
    .first();
  if (stored === undefined) throw new Error(`queue item ${id} was inserted but cannot be read back`);
  const row = fromRow(stored as Record<string, unknown>);
  return { item: row, created: row.id === id };
}

/**
 * Adds a Pending item (or, under a skip or fail policy at its limit, a finished one) and wakes the
 * daemons when it is due.
 */
export async function enqueue(db: RuntimeDatabase, item: NewQueueItem, options: { now?: Date } = {}): Promise<EnqueueResult> {
  const now = options.now ?? new Date();
  const result = await insertItem(db, db.knex, item, now);
  if (result.created && result.item.status === 'Pending' && result.item.runAfter <= now) await announceWork(db);
  return result;
}
