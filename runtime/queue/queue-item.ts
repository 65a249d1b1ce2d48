/**
 * A queue item two ways: `QueueRow`, a row of `queue_items` decoded (camelCase, Dates), which the
 * queue operations answer with and the daemon works on; and `QueueItem`, the JSON the HTTP
 * interface answers with (PascalCase, DESIGN §4). `queueItemJson` turns one into the other.
 */
import { fromJsonColumn } from '../database/column-values.js';
import { fromDatabaseTime, fromNullableDatabaseTime } from '../database/timestamps.js';

export const queueStatuses = ['Pending', 'InProgress', 'Complete', 'Failed'] as const;
export type QueueStatus = (typeof queueStatuses)[number];

/** Start types, spelled as answered (DESIGN §4); requests may use any case. */
export const startTypes = ['AdHoc', 'manual', 'repeat', 'planned', 'Single'] as const;
export type StartType = (typeof startTypes)[number];

/** The start type `text` names in any case, or undefined. */
export function parseStartType(text: string): StartType | undefined {
  const lower = text.toLowerCase();
  return startTypes.find((type) => type.toLowerCase() === lower);
}

/**
 * Longest values a start may give an item: what its columns hold on every engine (TEXT on
 * MariaDB: 64 KiB of up to 4-byte characters). Requests are refused past them, whichever route.
 */
export const valueLimits = { processId: 128, sourceId: 1024, whereClause: 8192, actionParams: 100, actionParamValue: 8192 } as const;

/** One ExecuteProcess/AddAction parameter, as the seed spells it. */
export interface ActionParam {
  Name: string;
  Value: string;
}

/**
 * The concurrency limit an item is enqueued under: at most `limit` items of one `key` are
 * InProgress at once, across all processes (claim.ts). `onLimit` decides what an enqueue does
 * when the key already has `limit` items Pending or InProgress: wait in line, or be recorded at
 * once as not run (Complete for skip, Failed for fail).
 */
export interface QueueConcurrency {
  /** `process:<id>`, or `group:<name>` for syncs and flows sharing a limit. */
  key: string;
  limit: number;
  onLimit: 'wait' | 'skip' | 'fail';
}

/**
 * The cursor range an incremental run read (runtime/sync/sync-cursor.ts), as mark text: ISO 8601
 * for DateTime, `YYYY-MM-DD` for Date, the digits of an Integer.
 */
export interface CursorStatistics {
  /** The sync's cursor field. */
  field: string;
  /** Where the read began (the mark less the look-back; `>` for an Integer key); null: a full run read everything. */
  from: string | number | null;
  /** The greatest cursor value read; null when no record was read. */
  to: string | null;
  /** The mark after the run, where the next run begins; null when none is kept yet. */
  mark: string | null;
}

/** What one attempt did to records. */
export interface ItemStatistics {
  read: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  /** Of the skipped: records whose target already held the mapped values, so nothing was written. Absent: 0. */
  unchanged?: number;
  /** A sync with a cursor: the range it read. */
  cursor?: CursorStatistics;
}

export const noStatistics: Readonly<ItemStatistics> = Object.freeze({ read: 0, created: 0, updated: 0, skipped: 0, failed: 0 });

/** One error of an item: a record's (with its source id) or the whole attempt's. */
export interface ItemError {
  message: string;
  sourceId?: string;
  /** ISO 8601 UTC. */
  at: string;
}

export interface QueueRow {
  id: string;
  /** The sync (or flow) the item runs. */
  processId: string;
  startType: StartType;
  sourceId: string | null;
  whereClause: string | null;
  actionParams: ActionParam[] | null;
  status: QueueStatus;
  /** Attempts started so far; claiming counts one. */
  attempts: number;
  /** Attempts allowed in all: the sync's retries + 1. */
  maxAttempts: number;
  /** Not claimed before this time (retry backoff, schedules). */
  runAfter: Date;
  /** The worker holding an InProgress item. */
  lockedBy: string | null;
  /** The holder's lease; past it, the reaper takes the item back. */
  leaseUntil: Date | null;
  createdAt: Date;
  /** When the current (or last) attempt started; null while Pending. */
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Of the last attempt that reported any; null before. */
  statistics: ItemStatistics | null;
  /** Of every attempt, oldest first. */
  errors: ItemError[];
  /** `processId@slot` for scheduled items. */
  slotKey: string | null;
  /** The key whose limit the item counts against; null when it has none. */
  concurrencyKey: string | null;
  /** Items of the key that may be InProgress at once; null when the item has no key. */
  concurrencyLimit: number | null;
  /**
   * The id of the HTTP request that started it (http/request-id.ts), for the run's log lines;
   * null when no request did (schedules, `syncline run`). The caller's word: never shown as data.
   */
  requestId: string | null;
  /** The Failed item this one retries (POST /api/queue/{id}/retry); null for any other start. */
  retryOf: string | null;
}

/**
 * The queue item JSON (DESIGN §4): the seed's five fields, then what the start asked for, then
 * what GetAction adds. ActionParams are not shown: a webhook start passes its request data as
 * ActionParams, credentials included, and GetAction answers any client with queue:read — not
 * only whoever started the item.
 */
export interface QueueItem {
  ID: string;
  StartType: StartType;
  ProcessId: string;
  /** ISO 8601 UTC. */
  CreatedDate: string;
  Status: QueueStatus;
  /** The one source record the item runs: a key value, or the GUID of a record-store entry. */
  SourceId: string | null;
  /** The filter the start added to the sync's own. */
  WhereClause: string | null;
  StartedDate: string | null;
  FinishedDate: string | null;
  Attempts: number;
  Statistics: {
    Read: number;
    Created: number;
    Updated: number;
    Skipped: number;
    Failed: number;
    Unchanged: number;
    /** A sync with a cursor: the range read; absent otherwise. */
    Cursor?: { Field: string; From: string | number | null; To: string | null; Mark: string | null };
  };
  Errors: Array<{ Message: string; SourceId?: string; At: string }>;
  /** The ID of the Failed item this one retries; null when it is no retry. */
  RetryOf: string | null;
}

/**
 * An item in the queue list (GET /api/queue): GetAction's JSON with the number of its errors in
 * place of their list, so a page of up to 500 items stays small; GetAction has the errors.
 */
export type QueueListItem = Omit<QueueItem, 'Errors' | 'RetryOf'> & { ErrorCount: number; RetryOf: string | null };

/** A `queue_items` row as any of the three drivers returns it. */
export function fromRow(row: Record<string, unknown>): QueueRow {
  const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
  return {
    id: String(row.id),
    processId: String(row.process_id),
    startType: row.start_type as StartType,
    sourceId: text(row.source_id),
    whereClause: text(row.where_clause),
    actionParams: (fromJsonColumn(row.action_params) as ActionParam[] | null) ?? null,
    status: row.status as QueueStatus,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    runAfter: fromDatabaseTime(row.run_after),
    lockedBy: text(row.locked_by),
    leaseUntil: fromNullableDatabaseTime(row.lease_until),
    createdAt: fromDatabaseTime(row.created_at),
    startedAt: fromNullableDatabaseTime(row.started_at),
    finishedAt: fromNullableDatabaseTime(row.finished_at),
    statistics: (fromJsonColumn(row.statistics) as ItemStatistics | null) ?? null,
    errors: (fromJsonColumn(row.errors) as ItemError[] | null) ?? [],
    slotKey: text(row.slot_key),
    concurrencyKey: text(row.concurrency_key),
    concurrencyLimit: row.concurrency_limit === null || row.concurrency_limit === undefined ? null : Number(row.concurrency_limit),
    requestId: text(row.request_id),
    retryOf: text(row.retry_of),
  };
}

/** The HTTP shape of an item. Statistics are zeros until an attempt reports some. */
export function queueItemJson(item: QueueRow): QueueItem {
  const statistics = item.statistics ?? noStatistics;
  return {
    ID: item.id,
    StartType: item.startType,
    ProcessId: item.processId,
    CreatedDate: item.createdAt.toISOString(),
    Status: item.status,
    SourceId: item.sourceId,
    WhereClause: item.whereClause,
    StartedDate: item.startedAt?.toISOString() ?? null,
    FinishedDate: item.finishedAt?.toISOString() ?? null,
    Attempts: item.attempts,
    Statistics: {
      Read: statistics.read,
      Created: statistics.created,
      Updated: statistics.updated,
      Skipped: statistics.skipped,
      Failed: statistics.failed,
      Unchanged: statistics.unchanged ?? 0,
      ...(statistics.cursor === undefined
        ? {}
        : {
            Cursor: {
              Field: statistics.cursor.field,
              From: statistics.cursor.from,
              To: statistics.cursor.to,
              Mark: statistics.cursor.mark,
            },
          }),
    },
    Errors: item.errors.map((error) => ({
      Message: error.message,
      ...(error.sourceId === undefined ? {} : { SourceId: error.sourceId }),
      At: error.at,
    })),
    RetryOf: item.retryOf,
  };
}

/** The list shape of an item (QueueListItem): the same fields in the same order, errors counted. */
export function queueListItemJson(item: QueueRow): QueueListItem {
  const { Errors, RetryOf, ...summary } = queueItemJson(item);
  return { ...summary, ErrorCount: Errors.length, RetryOf };
}
