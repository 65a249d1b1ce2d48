/**
 * Records one webhook call in the log (DESIGN §8). Always kept: time, method, status, duration,
 * the queue item a start created, and the ticker messages. Kept only when the webhook logs
 * payloads (`logPayload`, the seed's "store received data in log"): the request's headers, query
 * and body, and the response body — with credentials redacted (redact.ts) and each capped at
 * `payloadLimit` bytes of JSON; a cut part is replaced by a note saying how large it was and
 * a preview of its start, and such an entry cannot be replayed.
 *
 * An entry is never dropped for its payload: data that cannot be serialized (nested too deeply),
 * or that the database refuses to store (payloadRefused), is replaced by a note saying so, and the
 * rest of the entry is kept.
 *
 * A call whose body the reader refused keeps a note saying why instead of data and body, and
 * cannot be replayed.
 *
 * The raw body is kept only when nothing had to be taken out of the data and it holds no secret:
 * otherwise it would keep in the clear what the data has redacted. An entry whose data or query
 * lost a credential lists the places (`redacted`) and cannot be replayed either: a replay would
 * send `[redacted]` where the value was.
 *
 * Before writing, the webhook's old unpinned entries are pruned when due (prune-log.ts).
 * The endpoint writes entries in batches behind its answers (call-log-writer.ts).
 */
import { parseDuration } from '../../../definitions/duration.js';
import type { RuntimeDatabase } from '../../database/open-database.js';
import { toDatabaseTime } from '../../database/timestamps.js';
import type { TickerMessage } from '../ticker.js';
import type { WebhookRequest } from '../webhook-call.js';
import { takeCallOrigin } from './call-origin.js';
import { pruneDue, pruneWebhookLog } from './prune-log.js';
import { bodyHoldsSecret, namesOnly, redactHeaders, redactValue, type Redaction } from './redact.js';

/** Largest request payload, and largest response body, kept in an entry: 64 KiB of JSON each. */
export const payloadLimit = 64 * 1024;
/** Bytes of a cut body kept as its preview. */
const previewBytes = 2048;
/** When a webhook's logRetention does not parse (it always does after validation): 30 days. */
const fallbackRetentionMs = 30 * 86_400_000;

export interface WebhookCallRecord {
  /** The call id (the ticker's), also the entry's id. */
  id: string;
  webhookId: string;
  /** When the call arrived. */
  at: Date;
  method: string;
  /** The HTTP status answered. */
  status: number;
  durationMs: number;
  /** The queue item a start sync created. */
  queueItemId?: string;
  /** The id of the HTTP request that made the call (http/request-id.ts). */
  requestId?: string;
  ticker: readonly TickerMessage[];
  request: WebhookRequest;
  response: { status: number; body?: unknown };
  /** The webhook's logPayload: keep the payload and the response body. */
  logPayload: boolean;
  /** The webhook's logRetention, a duration such as 30d. */
  retention: string;
  /** What to redact: the webhook's names, secrets and the tokens (redact.ts); default the name rule alone. */
  redaction?: Redaction;
  /**
   * The reader refused the body (broken JSON, nested too deeply, too large, a type not accepted):
   * why, as the entry's note. Such an entry keeps headers and query but no data or body, and
   * cannot be replayed: a replay would send an empty body the caller never sent.
   */
  bodyRefused?: string;
}

/** The request as an entry keeps it. `body` is the raw body as text (base64 when it is not UTF-8). */
export interface LoggedPayload {
  headers: Record<string, string | string[]>;
  query: Record<string, string | string[]>;
  data?: unknown;
  body?: string;
  bodyEncoding?: 'utf8' | 'base64';
  /** Present when data and body were too large to keep. */
  truncated?: { bytes: number; limit: number; preview: string };
  /** Present when data and body could not be kept at all: why. */
  note?: string;
  /** Where credentials were taken out of the data or the query (`data.password`, `query.token`, `body`). */
  redacted?: string[];
}

export interface LoggedResponse {
  body?: unknown;
  truncated?: { bytes: number; limit: number; preview: string };
  /** Present when the body could not be kept at all: why. */
  note?: string;
}

/** A `webhook_log` row, ready to insert. */
export type CallLogRow = Record<string, string | number | boolean | Date | null>;

/** The retention of the record's webhook in ms. */
export function retentionMsOf(record: Pick<WebhookCallRecord, 'retention'>): number {
  return parseDuration(record.retention) ?? fallbackRetentionMs;
}

/**
 * The row for `record`, redacted and capped. Takes the call's origin note (call-origin.ts), so
 * build it once per call.
 */
export function callLogRow(db: RuntimeDatabase, record: WebhookCallRecord): CallLogRow {
  const origin = takeCallOrigin(record.id);
  const redaction = record.redaction ?? namesOnly;
  const payload = record.logPayload
    ? storable(
        () =>
          record.bodyRefused === undefined
            ? loggedPayload(record.request, redaction)
            : refusedPayload(record.request, redaction, record.bodyRefused),
        (note) => ({
          headers: redactHeaders(record.request.headers, redaction),
          query: redactValue(record.request.query, redaction) as LoggedPayload['query'],
          note: `the request data ${note}`,
        }),
      )
    : null;
  const response = record.logPayload
    ? storable(
        () => loggedResponse(record.response.body, redaction),
        (note) => ({ note: `the response body ${note}` }),
      )
    : null;
  return {
    id: record.id,
    webhook_id: record.webhookId,
    at: toDatabaseTime(db.dialect, record.at),
    method: record.method.toUpperCase().slice(0, 16),
    status: record.status,
    duration_ms: Math.max(0, Math.round(record.durationMs)),
    queue_item_id: record.queueItemId ?? null,
    request_id: record.requestId?.slice(0, 128) ?? null,
    origin: origin?.origin ?? null,
    replay_of: origin?.replayOf ?? null,
    pinned: false,
    // Stringified on every engine: pg would send a JS array as a PostgreSQL array, not JSON.
    ticker: JSON.stringify(record.ticker),
    payload: payload?.text ?? null,
    response: response?.text ?? null,
    // Read by the list as "not replayable": the payload is not the whole request.
    payload_truncated:
      payload !== null &&
      (payload.value.truncated !== undefined || payload.value.note !== undefined || payload.value.redacted !== undefined),
  };
}

/**
 * The row again, with its payload reduced to headers, query and a note, and its response body to
 * a note: for an entry the database refused as it was (MariaDB, for one, refuses JSON nested
 * deeper than 31 levels, which a response read from a system may be).
 */
export function payloadRefused(row: CallLogRow): CallLogRow {
  const note = 'was refused by the runtime database as it was (too large or nested too deeply for it)';
  const kept = typeof row.payload === 'string' ? (JSON.parse(row.payload) as LoggedPayload) : undefined;
  return {
    ...row,
    payload:
      kept === undefined
        ? null
        : JSON.stringify({ headers: kept.headers, query: kept.query, note: `the request data ${note}` } satisfies LoggedPayload),
    response: row.response === null ? null : JSON.stringify({ note: `the response body ${note}` } satisfies LoggedResponse),
    payload_truncated: kept !== undefined,
  };
}

/** `build()` and its JSON text; when either fails (data nested too deeply to serialize), `instead`'s with the reason. */
function storable<T>(build: () => T, instead: (note: string) => T): { value: T; text: string } {
  try {
    const value = build();
    return { value, text: JSON.stringify(value) };
  } catch (error) {
    const note =
      error instanceof RangeError
        ? 'could not be stored: it is nested too deeply to serialize'
        : 'could not be stored: it cannot be serialized as JSON';
    const value = instead(note);
    return { value, text: JSON.stringify(value) };
  }
}

/** Prunes the webhook's old entries when due (prune-log.ts). */
export async function pruneIfDue(db: RuntimeDatabase, webhookId: string, retentionMs: number): Promise<void> {
  const now = Date.now();
  if (pruneDue(webhookId, retentionMs, now)) await pruneWebhookLog(db, { webhookId, retentionMs, now: new Date(now) });
}

/**
 * Writes one entry now, before answering. The endpoint writes through call-log-writer.ts instead,
 * which batches entries after the answer; this is for callers that want the entry in the
 * database when the promise resolves.
 */
export async function recordWebhookCall(db: RuntimeDatabase, record: WebhookCallRecord): Promise<void> {
  await pruneIfDue(db, record.webhookId, retentionMsOf(record));
  const row = callLogRow(db, record);
  await db
    .knex('webhook_log')
    .insert(row)
    .catch(() => db.knex('webhook_log').insert(payloadRefused(row)));
}

function loggedPayload(request: WebhookRequest, redaction: Redaction): LoggedPayload {
  const fromQuery: string[] = [];
  const fromData: string[] = [];
  const query = redactValue(request.query, redaction, 'query', fromQuery) as LoggedPayload['query'];
  const data = request.data === undefined ? undefined : redactValue(request.data, redaction, 'data', fromData);
  // The body is what the data was parsed from: kept only when the data lost nothing and it holds no secret.
  if (fromData.length === 0 && request.rawBody.length > 0 && bodyHoldsSecret(request.rawBody, redaction)) fromData.push('body');
  const noted = [...fromQuery, ...fromData];
  const kept: LoggedPayload = {
    headers: redactHeaders(request.headers, redaction),
    query,
    ...(noted.length === 0 ? {} : { redacted: noted }),
  };
  const body = request.rawBody.length === 0 || fromData.length > 0 ? undefined : encodeBody(request.rawBody);
  const content = { ...(data === undefined ? {} : { data }), ...body };
  const bytes = Buffer.byteLength(JSON.stringify(content) ?? '');
  if (bytes <= payloadLimit) return { ...kept, ...content };
  const source = body !== undefined ? request.rawBody : Buffer.from(JSON.stringify(data) ?? '');
  return { ...kept, truncated: { bytes, limit: payloadLimit, preview: preview(source) } };
}

function refusedPayload(request: WebhookRequest, redaction: Redaction, why: string): LoggedPayload {
  return {
    headers: redactHeaders(request.headers, redaction),
    query: redactValue(request.query, redaction) as LoggedPayload['query'],
    note: why,
  };
}

function loggedResponse(body: unknown, redaction: Redaction): LoggedResponse {
  if (body === undefined) return {};
  const safe =
    Buffer.isBuffer(body) || typeof body === 'string'
      ? redaction.values.redact(Buffer.isBuffer(body) ? body.toString('utf8') : body)
      : redactValue(body, redaction);
  const text = typeof safe === 'string' ? safe : JSON.stringify(safe);
  const bytes = Buffer.byteLength(text ?? '');
  if (bytes <= payloadLimit) return { body: safe };
  return { truncated: { bytes, limit: payloadLimit, preview: preview(Buffer.from(text ?? '')) } };
}

function encodeBody(raw: Buffer): { body: string; bodyEncoding: 'utf8' | 'base64' } {
  const text = raw.toString('utf8');
  // A body that does not survive the round trip is not text; base64 keeps it exact for a replay.
  return Buffer.from(text, 'utf8').equals(raw)
    ? { body: text, bodyEncoding: 'utf8' }
    : { body: raw.toString('base64'), bodyEncoding: 'base64' };
}

function preview(source: Buffer): string {
  return source.subarray(0, previewBytes).toString('utf8');
}
