/**
 * The query parameters of GET /api/queue, checked once here: each refusal is a 400 naming the
 * parameter (`query.<name>`) and what it takes. Unknown parameters are refused too, so a misspelt
 * filter (`satus=Failed`) cannot answer the whole queue as if it had been applied.
 *
 * The cursor is opaque to callers: base64url of `["<created ISO>", "<id>"]`, the position of the
 * last item of the page before (queue/list-items.ts).
 */
import { isUuid } from '../database/column-values.js';
import { HttpProblem } from '../errors.js';
import type { QueueListQuery, QueuePosition } from '../queue/list-items.js';
import { parseStartType, queueStatuses, startTypes, valueLimits, type QueueStatus } from '../queue/queue-item.js';
import { parseQueryTimeRange } from './query-time.js';

export const defaultQueuePageSize = 50;
export const maxQueuePageSize = 500;

/** The parameters GET /api/queue takes. */
export const queueListParameters = [
  'sync',
  'status',
  'startType',
  'createdFrom',
  'createdTo',
  'finishedFrom',
  'finishedTo',
  'limit',
  'cursor',
] as const;

type RawQuery = Record<string, string | string[] | undefined>;

/** The query as asked, before the allow-list: `sync` is the id as given. */
export type ParsedQueueQuery = Omit<QueueListQuery, 'processIds'> & { sync?: string };

export function parseQueueListQuery(query: RawQuery): ParsedQueueQuery {
  for (const name of Object.keys(query)) {
    if (!(queueListParameters as readonly string[]).includes(name))
      invalid(name, `unknown parameter; GET /api/queue takes ${queueListParameters.join(', ')}`);
  }
  const sync = single(query, 'sync');
  if (sync !== undefined && (sync === '' || sync.length > valueLimits.processId))
    invalid('sync', `a sync or flow id of 1 to ${valueLimits.processId} characters`);
  const startTypeText = single(query, 'startType');
  const startType = startTypeText === undefined ? undefined : parseStartType(startTypeText);
  if (startTypeText !== undefined && startType === undefined) invalid('startType', `one of ${startTypes.join(', ')} (any case)`);
  const created = parseQueryTimeRange('createdFrom', single(query, 'createdFrom'), 'createdTo', single(query, 'createdTo'));
  const finished = parseQueryTimeRange('finishedFrom', single(query, 'finishedFrom'), 'finishedTo', single(query, 'finishedTo'));
  const statuses = statusesOf(query);
  const after = cursorOf(query);
  return {
    ...(sync === undefined ? {} : { sync }),
    ...(statuses === undefined ? {} : { statuses }),
    ...(startType === undefined ? {} : { startType }),
    ...(created.from === undefined ? {} : { createdFrom: created.from }),
    ...(created.to === undefined ? {} : { createdTo: created.to }),
    ...(finished.from === undefined ? {} : { finishedFrom: finished.from }),
    ...(finished.to === undefined ? {} : { finishedTo: finished.to }),
    ...(after === undefined ? {} : { after }),
    limit: limitOf(query),
  };
}

export function encodeCursor(position: QueuePosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id]), 'utf8').toString('base64url');
}

function invalid(name: string, message: string): never {
  throw new HttpProblem('invalid-request', `Query parameter ${name}: ${message}.`, { errors: [{ path: `query.${name}`, message }] });
}

function single(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) invalid(name, 'given more than once; give it once');
  return value;
}

/** `status=Pending&status=Failed` or `status=Pending,Failed`, in any case; answered spelling. */
function statusesOf(query: RawQuery): QueueStatus[] | undefined {
  const value = query.status;
  if (value === undefined) return undefined;
  const names = (Array.isArray(value) ? value : [value]).flatMap((text) => text.split(','));
  const statuses = names.map((name) => {
    const status = queueStatuses.find((known) => known.toLowerCase() === name.trim().toLowerCase());
    if (status === undefined) invalid('status', `${JSON.stringify(name.slice(0, 40))} is none of ${queueStatuses.join(', ')}`);
    return status;
  });
  return [...new Set(statuses)];
}

function limitOf(query: RawQuery): number {
  const text = single(query, 'limit');
  if (text === undefined) return defaultQueuePageSize;
  const size = /^[0-9]{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(size >= 1 && size <= maxQueuePageSize))
    invalid('limit', `a whole number from 1 to ${maxQueuePageSize} (default ${defaultQueuePageSize})`);
  return size;
}

function cursorOf(query: RawQuery): QueuePosition | undefined {
  const text = single(query, 'cursor');
  if (text === undefined) return undefined;
  const fix = 'not a cursor this list handed out; pass the `next` of the previous page as it was';
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string' && isUuid(value[1])) {
      const createdAt = new Date(value[0]);
      if (!Number.isNaN(createdAt.getTime())) return { createdAt, id: value[1].toLowerCase() };
    }
  } catch {
    // Not base64url JSON: refused below like any other text.
  }
  invalid('cursor', fix);
}
