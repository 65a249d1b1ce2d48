/**
 * Reading the webhook log and pinning entries, for the console (http/webhook-console-routes.ts).
 *
 *   list:  SELECT id, webhook_id, at, … FROM webhook_log
 *           WHERE webhook_id = ? [AND pinned = true]
 *             [AND ((status >= ? AND status < ?) OR …)]  -- status classes and codes
 *             [AND (origin IS NULL OR origin IN (?, …))] -- call, test, replay
 *             [AND at >= ?] [AND at < ?]
 *             [AND (at < ? OR (at = ? AND id < ?))]      -- after the cursor
 *           ORDER BY at DESC, id DESC LIMIT ? + 1
 *   get:   SELECT * FROM webhook_log WHERE webhook_id = ? AND id = ?
 *   pin:   UPDATE webhook_log SET pinned = ? WHERE webhook_id = ? AND id = ?
 *   count pinned: below
 *
 * Each but the count first writes the entries still buffered (call-log-writer.ts), so a call answered a moment
 * ago is already listed, shown and pinnable.
 *
 * Paging is by keyset (time, id), not offset: the log grows while someone pages through it, and
 * an offset would show entries twice. The cursor is opaque to callers. The filters are conditions
 * of the query itself, so every page is full of matching entries; the (webhook_id, at, id) index
 * keeps the order, and the filters thin the entries it walks.
 */
import type { RuntimeDatabase } from '../../database/open-database.js';
import { fromJsonColumn } from '../../database/column-values.js';
import { fromDatabaseTime, toDatabaseTime } from '../../database/timestamps.js';
import type { TickerMessage } from '../ticker.js';
import { flushCallLog } from './call-log-writer.js';
import type { LoggedPayload, LoggedResponse } from './record-call.js';

/** An entry as the list shows it. */
export interface LogEntrySummary {
  id: string;
  webhookId: string;
  /** ISO 8601 UTC. */
  at: string;
  method: string;
  status: number;
  durationMs: number;
  queueItemId: string | null;
  /** null for a call of the webhook URL; `test` or `replay` for calls the console made. */
  origin: 'test' | 'replay' | null;
  /** The entry a replay repeated. */
  replayOf: string | null;
  /** The id of the HTTP request that made the call (its X-Request-Id); null for entries from before request ids. */
  requestId: string | null;
  pinned: boolean;
  /** Whether the payload was kept (the webhook logs payloads). */
  hasPayload: boolean;
  /** Whether a replay is possible: the whole payload was kept. */
  replayable: boolean;
}

/** One entry with everything kept. */
export interface LogEntry extends LogEntrySummary {
  ticker: TickerMessage[];
  payload: LoggedPayload | null;
  response: LoggedResponse | null;
}

export interface LogPage {
  entries: LogEntrySummary[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next: string | null;
}

/** Who made a call: its URL called from outside, or the console's test or replay. */
export const callOrigins = ['call', 'test', 'replay'] as const;
export type CallOriginFilter = (typeof callOrigins)[number];

/** HTTP statuses from `from` up to, not including, `to`. */
export interface StatusRange {
  from: number;
  to: number;
}

export interface LogListQuery {
  limit: number;
  /** The `next` of the previous page. */
  cursor?: string;
  pinnedOnly?: boolean;
  /** Entries whose status is in any of these ranges; undefined: any. */
  statuses?: readonly StatusRange[];
  /** Entries of any of these origins; undefined: any. */
  origins?: readonly CallOriginFilter[];
  /** At or after. */
  from?: Date;
  /** Before. */
  to?: Date;
}

const summaryColumns = [
  'id',
  'webhook_id',
  'at',
  'method',
  'status',
  'duration_ms',
  'queue_item_id',
  'origin',
  'replay_of',
  'request_id',
  'pinned',
  'payload_truncated',
] as const;

export async function listLogEntries(db: RuntimeDatabase, webhookId: string, options: LogListQuery): Promise<LogPage> {
  await flushCallLog(db);
  const time = (value: Date) => toDatabaseTime(db.dialect, value);
  // The payload itself (up to 64 KiB) is not read for a list, only whether there is one.
  const hasPayload = db.knex.raw('CASE WHEN ?? IS NULL THEN 0 ELSE 1 END AS ??', ['payload', 'has_payload']);
  let query = db
    .knex('webhook_log')
    .select(...summaryColumns, hasPayload)
    .where({ webhook_id: webhookId });
  if (options.pinnedOnly) query = query.andWhere({ pinned: true });
  const statuses = options.statuses;
  if (statuses !== undefined) {
    query = query.andWhere((any) => {
      for (const range of statuses) any.orWhere((one) => one.where('status', '>=', range.from).andWhere('status', '<', range.to));
    });
  }
  const origins = options.origins;
  if (origins !== undefined) {
    // A call of the URL has no origin noted (NULL); the console's calls say test or replay.
    const named = origins.filter((origin) => origin !== 'call');
    query = query.andWhere((any) => {
      if (origins.includes('call')) any.orWhereNull('origin');
      if (named.length > 0) any.orWhereIn('origin', named);
    });
  }
  if (options.from !== undefined) query = query.andWhere('at', '>=', time(options.from));
  if (options.to !== undefined) query = query.andWhere('at', '<', time(options.to));
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  if (after) {
    const at = time(after.at);
    query = query.andWhere((where) =>
      where.where('at', '<', at).orWhere((same) => same.where('at', '=', at).andWhere('id', '<', after.id)),
    );
  }
  const rows = (await query
    .orderBy([
      { column: 'at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(options.limit + 1)) as Array<Record<string, unknown>>;
  const entries = rows.slice(0, options.limit).map(toSummary);
  const last = entries.at(-1);
  return { entries, next: rows.length > options.limit && last ? encodeCursor(last) : null };
}

export async function getLogEntry(db: RuntimeDatabase, webhookId: string, entryId: string): Promise<LogEntry | undefined> {
  await flushCallLog(db);
  const row = (await db.knex('webhook_log').where({ webhook_id: webhookId, id: entryId }).first()) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  const payload = fromJsonColumn(row.payload ?? null) as LoggedPayload | null;
  return {
    ...toSummary({ ...row, has_payload: payload === null ? 0 : 1 }),
    ticker: fromJsonColumn(row.ticker) as TickerMessage[],
    payload,
    response: fromJsonColumn(row.response ?? null) as LoggedResponse | null,
  };
}

/**
 * How many pinned entries each webhook has (webhooks without any are absent), for the console's
 * list of webhooks; the (webhook_id, pinned, at) index answers it.
 *   SELECT webhook_id, COUNT(*) AS count FROM webhook_log WHERE pinned = true GROUP BY webhook_id
 */
export async function countPinned(db: RuntimeDatabase): Promise<Map<string, number>> {
  const rows = (await db
    .knex('webhook_log')
    .select('webhook_id')
    .count({ count: '*' })
    .where({ pinned: true })
    .groupBy('webhook_id')) as Array<{
    webhook_id: string;
    count: number | string;
  }>;
  // PostgreSQL answers COUNT(*) as a bigint string.
  return new Map(rows.map((row) => [String(row.webhook_id), Number(row.count)]));
}

/** Pins or unpins an entry; false when the webhook has no such entry. */
export async function setPinned(db: RuntimeDatabase, webhookId: string, entryId: string, pinned: boolean): Promise<boolean> {
  await flushCallLog(db);
  const changed = await db.knex('webhook_log').where({ webhook_id: webhookId, id: entryId }).update({ pinned });
  // MariaDB counts changed rows, not matched ones: pinning a pinned entry changes nothing.
  if (changed > 0) return true;
  return (await db.knex('webhook_log').select('id').where({ webhook_id: webhookId, id: entryId }).first()) !== undefined;
}

function toSummary(row: Record<string, unknown>): LogEntrySummary {
  const hasPayload = Number(row.has_payload) === 1;
  return {
    id: String(row.id),
    webhookId: String(row.webhook_id),
    at: fromDatabaseTime(row.at).toISOString(),
    method: String(row.method),
    status: Number(row.status),
    durationMs: Number(row.duration_ms),
    queueItemId: row.queue_item_id === null || row.queue_item_id === undefined ? null : String(row.queue_item_id),
    origin: row.origin === 'test' || row.origin === 'replay' ? row.origin : null,
    replayOf: row.replay_of === null || row.replay_of === undefined ? null : String(row.replay_of),
    requestId: row.request_id === null || row.request_id === undefined ? null : String(row.request_id),
    pinned: Boolean(row.pinned),
    hasPayload,
    replayable: hasPayload && !row.payload_truncated,
  };
}

function encodeCursor(entry: LogEntrySummary): string {
  return Buffer.from(JSON.stringify([entry.at, entry.id])).toString('base64url');
}

/** The cursor's position; undefined for text that is no cursor of ours (the caller answers 400). */
export function decodeCursor(cursor: string): { at: Date; id: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    // An id with NUL was never handed out, and PostgreSQL could not even compare it.
    if (!Array.isArray(value) || typeof value[0] !== 'string' || typeof value[1] !== 'string' || value[1].includes('\u0000'))
      return undefined;
    const at = new Date(value[0]);
    return Number.isNaN(at.getTime()) ? undefined : { at, id: value[1] };
  } catch {
    return undefined;
  }
}
