/**
 * The five queue routes and their schemas, with the snapshot's sync and flow ids as enums. The
 * request bodies are the routes' own schemas (queue-body.ts), which the routes check bodies
 * against. Start types are listed in their answered spelling; requests may use any case.
 */
import type { Snapshot } from '../../../definitions/snapshot.js';
import { queueStatuses, startTypes, valueLimits } from '../../queue/queue-item.js';
import { actionParamSchema, addActionBody, executeProcessBody } from '../queue-body.js';

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

/** Components of the queue routes. */
export function queueSchemas() {
  const timestamp = { type: 'string', format: 'date-time' };
  const count = { type: 'integer', minimum: 0 };
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
      ],
      properties: {
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
          required: ['Read', 'Created', 'Updated', 'Skipped', 'Failed'],
          properties: { Read: count, Created: count, Updated: count, Skipped: count, Failed: count },
          additionalProperties: false,
        },
        Errors: {
          type: 'array',
          description: "Errors of every attempt, oldest first: a record's (with its SourceId) or the whole attempt's.",
          items: {
            type: 'object',
            required: ['Message', 'At'],
            properties: { Message: { type: 'string' }, SourceId: { type: 'string' }, At: timestamp },
            additionalProperties: false,
          },
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
  };
}
