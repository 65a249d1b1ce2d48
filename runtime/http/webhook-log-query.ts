/**
 * The query parameters of GET /api/console/webhooks/{id}/log, checked once here: each refusal is a
 * 400 naming the parameter (`query.<name>`) and what it takes. Unknown parameters are refused, as
 * GET /api/queue refuses them, so a misspelt filter (`stauts=5xx`) cannot answer the whole log as
 * if it had been applied.
 *
 *   limit    entries per page (1–200, default 50)
 *   cursor   the `next` of the previous page (older entries)
 *   pinned   true: pinned entries only
 *   status   HTTP statuses answered: classes (`2xx`, `4xx`) or codes (`404`), comma-separated or repeated
 *   origin   `call` (a call of the webhook URL), `test`, `replay`; comma-separated or repeated
 *   from, to entries at or after `from`, before `to` (query-time.ts)
 */
import { HttpProblem } from '../errors.js';
import { callOrigins, decodeCursor, type CallOriginFilter, type LogListQuery, type StatusRange } from '../webhooks/log/log-entries.js';
import { parseQueryTimeRange } from './query-time.js';

export const defaultLogPageSize = 50;
export const maxLogPageSize = 200;

/** The parameters the log list takes. */
export const webhookLogParameters = ['limit', 'cursor', 'pinned', 'status', 'origin', 'from', 'to'] as const;

type RawQuery = Record<string, string | string[] | undefined>;

export function parseWebhookLogQuery(query: RawQuery): LogListQuery {
  for (const name of Object.keys(query)) {
    if (!(webhookLogParameters as readonly string[]).includes(name))
      invalid(name, `unknown parameter; the call log takes ${webhookLogParameters.join(', ')}`);
  }
  const cursor = single(query, 'cursor');
  if (cursor !== undefined && decodeCursor(cursor) === undefined)
    invalid('cursor', 'not a cursor this log handed out; pass the `next` of the previous page as it was');
  const pinned = single(query, 'pinned');
  if (pinned !== undefined && pinned !== 'true' && pinned !== 'false') invalid('pinned', 'true or false');
  const { from, to } = parseQueryTimeRange('from', single(query, 'from'), 'to', single(query, 'to'));
  const statuses = mergedRanges(listOf(query, 'status')?.map(statusRange));
  const origins = listOf(query, 'origin')?.map(originOf);
  return {
    limit: limitOf(query),
    ...(cursor === undefined ? {} : { cursor }),
    pinnedOnly: pinned === 'true',
    ...(statuses === undefined ? {} : { statuses }),
    ...(origins === undefined ? {} : { origins: [...new Set(origins)] }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  };
}

function invalid(name: string, message: string): never {
  throw new HttpProblem('invalid-request', `Query parameter ${name}: ${message}.`, { errors: [{ path: `query.${name}`, message }] });
}

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) invalid(name, 'given more than once; give it once');
  return value;
}

/** `status=2xx&status=404` or `status=2xx,404`: the values, trimmed; undefined when absent. */
function listOf(query: RawQuery, name: 'status' | 'origin'): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value]).flatMap((text) => text.split(',')).map((part) => part.trim());
}

const statusForm = 'HTTP status classes (2xx, 4xx) or codes (404), comma-separated';

/** `4xx` → [400, 500); `404` → [404, 405). */
function statusRange(text: string): StatusRange {
  const quoted = JSON.stringify(text.slice(0, 40));
  const kind = /^([1-5])xx$/i.exec(text);
  if (kind) return { from: Number(kind[1]) * 100, to: Number(kind[1]) * 100 + 100 };
  if (!/^[1-5][0-9]{2}$/.test(text)) invalid('status', `${quoted} is neither; ${statusForm}`);
  return { from: Number(text), to: Number(text) + 1 };
}

/**
 * The ranges as few as cover the same statuses, in order: the filter is one condition per range,
 * and `status=4xx,4xx,…` a thousand times over made a condition too deep for SQLite to take. At
 * most 250 remain (every other code of 100–599).
 */
function mergedRanges(ranges: StatusRange[] | undefined): StatusRange[] | undefined {
  if (ranges === undefined) return undefined;
  const merged: StatusRange[] = [];
  for (const range of [...ranges].sort((a, b) => a.from - b.from)) {
    const last = merged.at(-1);
    if (last !== undefined && range.from <= last.to) last.to = Math.max(last.to, range.to);
    else merged.push({ ...range });
  }
  return merged;
}

function originOf(text: string): CallOriginFilter {
  const origin = callOrigins.find((known) => known === text.toLowerCase());
  if (origin === undefined) invalid('origin', `${JSON.stringify(text.slice(0, 40))} is none of ${callOrigins.join(', ')}`);
  return origin;
}

function limitOf(query: RawQuery): number {
  const text = single(query, 'limit');
  if (text === undefined) return defaultLogPageSize;
  const size = /^[0-9]{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(size >= 1 && size <= maxLogPageSize))
    invalid('limit', `a whole number from 1 to ${maxLogPageSize} (default ${defaultLogPageSize})`);
  return size;
}
