/**
 * The five queue routes and their schemas, with the snapshot's sync and flow ids as enums. The
 * request bodies are the routes' own schemas (queue-body.ts), which the routes check bodies
 * against. Start types are listed in their answered spelling; requests may use any case.
 */
import type { Snapshot } from '../../../definitions/snapshot.js';
import { queueStatuses, startTypes, valueLimits } from '../../queue/queue-item.js';
import { actionParamSchema, addActionBody, executeProcessBody } from '../queue-body.js';
import { defaultQueuePageSize, maxQueuePageSize } from '../queue-list-query.js';

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const errorResponses = {
  400: ref('BadRequest'),
  401: ref('Unauthorized'),
  403: ref('Forbidden'),
  404: ref('NotFound'),
  default: ref('Problem'),
};
const bodyResponses = { 413: ref('TooLarge'), 415: ref('UnsupportedMediaType') };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const item = { $ref: '#/components/schemas/QueueItem' };
const itemUrl = { description: 'The GetAction URL of the item, for polling.', schema: { type: 'string' } };

/** The events of GET /api/queue/{queueId}/events, also relayed (prefixed `run.`) by the webhook test stream. */
export const itemEventsDescription =
  'Server-sent events, each `data` one line of JSON: `item` (the item as GetAction answers it, at once), `progress` (the item again whenever its Status, Attempts, Statistics or Errors change; the runtime database is read every 300 ms, so a run in another process is followed too), `done` (the item once Complete or Failed, with its Errors; then the stream ends), `expired` (`{ID, afterMs}`: the stream lived its longest, one hour; the run goes on) or `error` (`{ID, message}`: the item could not be read). A comment line `: keep-alive` comes every 15 s.';

/** Components of the queue routes. */
export function queueSchemas() {
  const timestamp = { type: 'string', format: 'date-time' };
  const count = { type: 'integer', minimum: 0 };
  const retryOf = {
    type: ['string', 'null'],
    format: 'uuid',
    description: 'The ID of the Failed item this one retries (POST /api/queue/{queueId}/retry); null when it is no retry.',
  };
  const markValue = { type: ['string', 'null'] };
  const cursorStatistics = {
    type: 'object',
    description:
      'A sync with a cursor (source.cursor): the range of the cursor field this attempt read. Values as mark text: ISO 8601 for DateTime, YYYY-MM-DD for Date, the digits of an Integer. Absent for a sync without a cursor, an ad-hoc start and a flow.',
    required: ['Field', 'From', 'To', 'Mark'],
    properties: {
      Field: { type: 'string', description: 'The cursor field of the source.' },
      From: {
        type: ['string', 'integer', 'null'],
        description:
          'Where the read began: the previous mark less the look-back (records from it on; for an Integer key, records past it). null: a full run read every record.',
      },
      To: { ...markValue, description: 'The greatest cursor value read; null when no record was read.' },
      Mark: {
        ...markValue,
        description:
          'The high-water mark after the attempt, where the next run begins: the greatest value read, held below the smallest value of a record that failed. null: none kept yet.',
      },
    },
    additionalProperties: false,
  };
  // Shared by QueueItem and QueueListItem, which differ only in Errors against ErrorCount.
  const itemProperties = {
    ID: { type: 'string', format: 'uuid', description: 'For polling with GetAction.' },
    StartType: { enum: [...startTypes] },
    ProcessId: { type: 'string', description: 'The sync or flow the item runs.' },
    CreatedDate: timestamp,
    Status: { enum: [...queueStatuses] },
    SourceId: {
      type: ['string', 'null'],
      description:
        'The one source record the item runs (StartProcessAdHoc, AddAction with SourceId): its key value, or the GUID of the record-store entry a webhook start stored. null: the whole source.',
    },
    WhereClause: {
      type: ['string', 'null'],
      description: "The filter the start added to the sync's own (AddAction, ExecuteProcess); null: none.",
    },
    StartedDate: { type: ['string', 'null'], format: 'date-time', description: 'Start of the current or last attempt.' },
    FinishedDate: { type: ['string', 'null'], format: 'date-time' },
    Attempts: count,
    Statistics: {
      type: 'object',
      description: 'Records of the last attempt that reported any; zeros before.',
      required: ['Read', 'Created', 'Updated', 'Skipped', 'Failed', 'Unchanged'],
      properties: {
        Read: count,
        Created: count,
        Updated: count,
        Skipped: count,
        Failed: count,
        Unchanged: {
          ...count,
          description: 'Of the Skipped: records whose matched target record already held the mapped values, so nothing was written.',
        },
        Cursor: cursorStatistics,
      },
      additionalProperties: false,
    },
  };
  const errors = {
    type: 'array',
    description: "Errors of every attempt, oldest first: a record's (with its SourceId) or the whole attempt's.",
    items: {
      type: 'object',
      required: ['Message', 'At'],
      properties: { Message: { type: 'string' }, SourceId: { type: 'string' }, At: timestamp },
      additionalProperties: false,
    },
  };
  return {
    QueueItem: {
      type: 'object',
      description:
        "A queue item: the seed's five fields (ID, StartType, ProcessId, CreatedDate, Status), what the start asked for (SourceId, WhereClause), then its run. ActionParams are not shown: a webhook start passes its request data in them, and any client with queue:read may read the item.",
      required: [
        'ID',
        'StartType',
        'ProcessId',
        'CreatedDate',
        'Status',
        'SourceId',
        'WhereClause',
        'StartedDate',
        'FinishedDate',
        'Attempts',
        'Statistics',
        'Errors',
        'RetryOf',
      ],
      properties: { ...itemProperties, Errors: errors, RetryOf: retryOf },
      additionalProperties: false,
    },
    QueueListItem: {
      type: 'object',
      description: 'A queue item in the list: the fields of GetAction, with ErrorCount in place of the Errors list (GetAction has them).',
      required: [
        'ID',
        'StartType',
        'ProcessId',
        'CreatedDate',
        'Status',
        'SourceId',
        'WhereClause',
        'StartedDate',
        'FinishedDate',
        'Attempts',
        'Statistics',
        'ErrorCount',
        'RetryOf',
      ],
      properties: {
        ...itemProperties,
        ErrorCount: { ...count, description: 'How many errors the item has (of every attempt).' },
        RetryOf: retryOf,
      },
      additionalProperties: false,
    },
    QueuePage: {
      type: 'object',
      description: 'One page of the queue list, newest first.',
      required: ['items', 'next'],
      properties: {
        items: { type: 'array', items: { $ref: '#/components/schemas/QueueListItem' } },
        next: {
          type: ['string', 'null'],
          description: 'Pass as `cursor`, with the same filters, for the next (older) page; null on the last page.',
        },
      },
      additionalProperties: false,
    },
    ActionParam: actionParamSchema,
    ExecuteProcessBody: executeProcessBody.schema,
  };
}

export function queuePaths(snapshot: Snapshot): Record<string, unknown> {
  const processes = [...new Set([...snapshot.syncs.keys(), ...snapshot.flows.keys()])];
  const enumOrString = (values: string[]) => (values.length ? { type: 'string', enum: values } : { type: 'string' });
  const processParameter = {
    name: 'syncId',
    in: 'path',
    required: true,
    schema: enumOrString(processes),
    description: 'The sync or flow.',
  };
  const sourceParameter = {
    name: 'sourceId',
    in: 'path',
    required: true,
    schema: { type: 'string', maxLength: valueLimits.sourceId },
    description:
      'The source record: its key value, or the GUID of a record-store entry (for a flow: one stored for its first step, which alone reads it).',
  };
  const pending = {
    description: 'The Pending item; a daemon runs it. Content-Location is its GetAction URL.',
    headers: { 'Content-Location': itemUrl },
    content: json(item),
  };
  const direct = {
    200: {
      description: 'The finished item (Complete or Failed) with its statistics and errors.',
      headers: { 'Content-Location': itemUrl },
      content: json(item),
    },
    202: {
      description: 'The run outlasted the synchronous time limit and goes on; the InProgress item, to poll at Location.',
      headers: { Location: itemUrl },
      content: json(item),
    },
  };
  return {
    '/api/StartProcessAdHoc/{syncId}/{sourceId}': {
      post: {
        operationId: 'StartProcessAdHoc',
        summary: 'Queue one source record for a sync or flow (scope queue:write); a daemon runs it.',
        tags: ['queue'],
        parameters: [processParameter, sourceParameter],
        responses: { 200: pending, ...errorResponses },
      },
    },
    '/api/AddAction': {
      post: {
        operationId: 'AddAction',
        summary: 'Queue a start of any kind of a sync or flow (scope queue:write); a daemon runs it.',
        tags: ['queue'],
        requestBody: {
          required: true,
          // The route's schema, with the ids it would find: an unknown one is answered 404, not 400.
          content: json({
            ...addActionBody.schema,
            properties: {
              ...addActionBody.schema.properties,
              ProcessId: { ...addActionBody.schema.properties.ProcessId, ...enumOrString(processes) },
            },
          }),
        },
        responses: { 200: pending, ...errorResponses, ...bodyResponses },
      },
    },
    '/api/StartProcessDirect/{syncId}/{sourceId}': {
      post: {
        operationId: 'StartProcessDirect',
        summary: 'Run one source record through a sync or flow in this request and answer the finished item (scope queue:write).',
        tags: ['queue'],
        parameters: [processParameter, sourceParameter],
        responses: { ...direct, ...errorResponses },
      },
    },
    '/api/ExecuteProcess/{syncId}': {
      post: {
        operationId: 'ExecuteProcess',
        summary: 'Run a sync or flow in this request and answer the finished item (scope queue:write).',
        tags: ['queue'],
        parameters: [processParameter],
        requestBody: { required: true, content: json({ $ref: '#/components/schemas/ExecuteProcessBody' }) },
        responses: { ...direct, ...errorResponses, ...bodyResponses },
      },
    },
    '/api/GetAction/{queueId}': {
      get: {
        operationId: 'GetAction',
        summary: 'Status, statistics and errors of a queue item (scope queue:read).',
        tags: ['queue'],
        parameters: [{ name: 'queueId', in: 'path', required: true, schema: { type: 'string' }, description: 'The ID a start answered.' }],
        responses: {
          200: { description: 'The item.', content: json(item) },
          401: ref('Unauthorized'),
          403: ref('Forbidden'),
          404: ref('NotFound'),
          default: ref('Problem'),
        },
      },
    },
    ...queueItemPaths(enumOrString(processes)),
  };
}

/** GET /api/queue and the cancel and retry of one item (http/queue-item-routes.ts). */
function queueItemPaths(processSchema: Record<string, unknown>): Record<string, unknown> {
  const query = (name: string, description: string, schema: unknown, extra: Record<string, unknown> = {}) => ({
    name,
    in: 'query',
    required: false,
    schema,
    description,
    ...extra,
  });
  const time = { type: 'string', description: 'ISO 8601: a date (midnight UTC) or a date and time with Z or an offset.' };
  const idParameter = { name: 'queueId', in: 'path', required: true, schema: { type: 'string' }, description: 'The ID of the item.' };
  const conflict = (description: string) => ({
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  });
  const notFound = {
    description: "No such item, or one of a process off the client's allow-list.",
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
  return {
    '/api/queue': {
      get: {
        operationId: 'ListQueueItems',
        summary: "Queue items, newest first, filtered and paged (scope queue:read); a client's sync allow-list limits them to its syncs.",
        tags: ['queue'],
        parameters: [
          query('sync', 'Only the items of this sync or flow (any case).', { ...processSchema, maxLength: valueLimits.processId }),
          query(
            'status',
            'Only items in these statuses: the parameter repeated, or a comma-separated list (any case).',
            { type: 'array', items: { enum: [...queueStatuses] } },
            { style: 'form', explode: true },
          ),
          query('startType', 'Only items of this start type (any case).', { enum: [...startTypes] }),
          query('createdFrom', 'Only items created at or after this time.', time),
          query('createdTo', 'Only items created before this time; after createdFrom.', time),
          query('finishedFrom', 'Only items that finished (Complete or Failed) at or after this time.', time),
          query('finishedTo', 'Only items that finished before this time; after finishedFrom.', time),
          query('limit', `Items per page.`, { type: 'integer', minimum: 1, maximum: maxQueuePageSize, default: defaultQueuePageSize }),
          query('cursor', 'The `next` of the previous page; absent for the first (newest) page.', { type: 'string' }),
        ],
        responses: {
          200: { description: 'One page of items.', content: json({ $ref: '#/components/schemas/QueuePage' }) },
          400: ref('BadRequest'),
          401: ref('Unauthorized'),
          403: ref('Forbidden'),
          default: ref('Problem'),
        },
      },
    },
    '/api/queue/{queueId}/events': {
      get: {
        operationId: 'QueueItemEvents',
        summary: "Follow an item's progress as server-sent events until it is Complete or Failed (scope queue:read).",
        description: itemEventsDescription,
        tags: ['queue'],
        parameters: [idParameter],
        responses: {
          200: {
            description: "The event stream; each event's data is one line of JSON.",
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          401: ref('Unauthorized'),
          403: ref('Forbidden'),
          404: notFound,
          503: {
            description:
              'This process already serves its most event streams at once (problem too-many-streams); Retry-After says when to try again.',
            headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } },
            content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
          },
          default: ref('Problem'),
        },
      },
    },
    '/api/queue/{queueId}/cancel': {
      post: {
        operationId: 'CancelQueueItem',
        summary: 'End a Pending item as Failed without running it, with the error "cancelled by client <id>" (scope queue:write).',
        tags: ['queue'],
        parameters: [idParameter],
        responses: {
          200: { description: 'The item, now Failed.', content: json(item) },
          401: ref('Unauthorized'),
          403: ref('Forbidden'),
          404: notFound,
          409: conflict('The item is not Pending (problem wrong-queue-status, naming its status).'),
          default: ref('Problem'),
        },
      },
    },
    '/api/queue/{queueId}/retry': {
      post: {
        operationId: 'RetryQueueItem',
        summary:
          'Start a Failed item again as a new item with the same process, start type, source id, WhereClause and ActionParams (scope queue:write); the failed item stays as it ended.',
        tags: ['queue'],
        parameters: [idParameter],
        responses: {
          201: {
            description:
              "The new item, with RetryOf: Pending, or, when the sync's concurrency limit is reached and its onLimit is skip or fail, already Complete or Failed with a note.",
            headers: { Location: itemUrl },
            content: json(item),
          },
          401: ref('Unauthorized'),
          403: ref('Forbidden'),
          404: {
            ...notFound,
            description: "No such item, one of a process off the client's allow-list, or its process is no longer defined.",
          },
          409: conflict('The item is not Failed (problem wrong-queue-status, naming its status).'),
          default: ref('Problem'),
        },
      },
    },
  };
}
