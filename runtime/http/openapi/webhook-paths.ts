/**
 * One path per webhook (`/api/webhooks/<id>`), with the methods it answers, its request schema
 * (JSON body, form fields, and on GET the query string) and its response schema — the queue item
 * for a start sync — and the console's webhook routes (log, pins, replay, test).
 *
 * Webhooks take no bearer token: their security is the webhook's own secret header (and, where
 * configured, a signature), so their operations say `security: []`. The secret header and 403 are
 * listed only for a webhook that has a secret (or a verify token to compare), 401 only for one that
 * checks signatures: without them, no call of that webhook is ever refused for that reason.
 * A paged webhook describes its paging properties and `{data, total}` (webhook-paging.ts), and
 * no 204 unless it has an execution condition: it answers a page, empty or not.
 */
import type { Snapshot, WebhookEntry } from '../../../definitions/snapshot.js';
import { callOrigins } from '../../webhooks/log/log-entries.js';
import { queryTimeForm } from '../query-time.js';
import { defaultLogPageSize, maxLogPageSize } from '../webhook-log-query.js';
import { pagingAnswer, pagingParameters, pagingRequest } from './webhook-paging.js';

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});
const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const text = { type: 'string' };
const nullableText = { type: ['string', 'null'] };

function webhookOperation(snapshot: Snapshot, entry: WebhookEntry, method: 'get' | 'post') {
  const d = entry.definition;
  const declared: Record<string, unknown> = d.requestSchema ?? {
    type: 'object',
    description: 'Any fields; the webhook declares no request schema.',
  };
  const request = pagingRequest(snapshot, entry, declared);
  const paged = d.paging !== undefined;
  const response =
    d.action === 'startSync'
      ? { $ref: '#/components/schemas/QueueItem' }
      : paged
        ? pagingAnswer(snapshot, entry)
        : (d.responseSchema ?? {
            description: d.action.endsWith('WithSync') ? 'As the sync produces it.' : 'As the read mapping produces it.',
          });
  const checksSecret = d.secret !== undefined || d.challenge?.verifyToken !== undefined;
  const parameters: Array<Record<string, unknown>> = [];
  if (d.secret !== undefined) {
    parameters.push({
      name: 'service_webhooksecret',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'The webhook secret (or send it in Authorization, bearer or raw).',
    });
  }
  const listed = new Set<string>();
  if (method === 'get') {
    const properties = (declared as { properties?: Record<string, unknown> }).properties ?? {};
    const required = new Set((declared as { required?: string[] }).required ?? []);
    for (const name of Object.keys(properties)) {
      listed.add(name);
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        schema: { type: 'string' },
        description: 'A request field; query-string values arrive as text.',
      });
    }
  }
  parameters.push(...pagingParameters(snapshot, entry, listed));
  const responses: Record<string, unknown> = {
    200: {
      description:
        d.action === 'startSync'
          ? 'The queue item the call created (Pending); a daemon runs it.'
          : paged
            ? 'One page of rows and the total.'
            : 'The result.',
      content: json(response),
    },
    // A paged webhook answers a page even when it is empty; only its condition can stop it without one.
    ...(!paged
      ? { 204: { description: 'Done without a result: no record found, the execution condition was false, or nothing to answer.' } }
      : d.condition !== undefined
        ? { 204: { description: 'The execution condition was false: the action did not run.' } }
        : {}),
    400: problem(
      `The data does not fit the request schema (the problem lists each error)${paged ? ', a paging property is out of range, the filter does not parse or names another column' : ''}, or the body is broken.`,
    ),
    ...(checksSecret
      ? {
          403: problem(
            d.secret !== undefined
              ? 'The webhook secret is missing or wrong.'
              : 'The verify token of the registration challenge does not match.',
          ),
        }
      : {}),
    404: problem('No webhook has this id.'),
    410: problem('The webhook is inactive.'),
    ...(d.signature ? { 401: problem('The signature of the body is missing, wrong or too old.') } : {}),
    ...(d.redirectUrl
      ? {
          303: {
            description: 'Processed; the browser is sent on to the redirect URL.',
            headers: { Location: { schema: { type: 'string' } } },
          },
        }
      : {}),
    ...(d.rateLimit ? { 429: problem('Too many calls; Retry-After says when to try again.') } : {}),
    ...(method === 'post' ? { 413: ref('TooLarge'), 415: problem('The body is neither JSON nor form data.') } : {}),
    default: ref('Problem'),
  };
  return {
    operationId: `webhook_${d.id}_${method}`,
    summary: `${d.name ?? d.id}: ${d.action}${d.active ? '' : ' (inactive: answers 410)'}`,
    ...(d.description === undefined ? {} : { description: d.description }),
    tags: ['webhooks'],
    security: [],
    parameters,
    ...(method === 'post'
      ? {
          requestBody: {
            required: false,
            content: { 'application/json': { schema: request }, 'application/x-www-form-urlencoded': { schema: request } },
          },
        }
      : {}),
    responses,
  };
}

export function webhookPaths(snapshot: Snapshot): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const entry of snapshot.webhooks.values()) {
    paths[`/api/webhooks/${entry.definition.id}`] = {
      get: webhookOperation(snapshot, entry, 'get'),
      post: webhookOperation(snapshot, entry, 'post'),
    };
  }
  return paths;
}

/** Components of the console's webhook routes. */
export function webhookConsoleSchemas() {
  const values = { type: 'object', additionalProperties: { anyOf: [text, { type: 'array', items: text }] } };
  const truncated = {
    type: 'object',
    required: ['bytes', 'limit', 'preview'],
    properties: { bytes: { type: 'integer' }, limit: { type: 'integer' }, preview: text },
  };
  const summary = {
    id: text,
    webhookId: text,
    at: { type: 'string', format: 'date-time' },
    method: text,
    status: { type: 'integer' },
    durationMs: { type: 'integer', minimum: 0 },
    queueItemId: nullableText,
    origin: { enum: ['test', 'replay', null], description: 'null for a call of the webhook URL.' },
    replayOf: { ...nullableText, description: 'The entry a replay or a test with a pin sent again.' },
    requestId: {
      ...nullableText,
      description: 'The X-Request-Id of the HTTP request that made the call (given by the caller, or made up).',
    },
    pinned: { type: 'boolean' },
    hasPayload: { type: 'boolean' },
    replayable: { type: 'boolean' },
  };
  return {
    WebhookLogSummary: { type: 'object', required: Object.keys(summary), properties: summary, additionalProperties: false },
    WebhookLogEntry: {
      type: 'object',
      required: [...Object.keys(summary), 'ticker', 'payload', 'response'],
      properties: {
        ...summary,
        ticker: { type: 'array', items: { $ref: '#/components/schemas/TickerMessage' } },
        payload: {
          type: ['object', 'null'],
          description: 'Kept only when the webhook logs payloads; credentials redacted. The raw body only when the data lost nothing.',
          required: ['headers', 'query'],
          properties: {
            headers: values,
            query: values,
            data: {},
            body: text,
            bodyEncoding: { enum: ['utf8', 'base64'] },
            truncated,
            note: {
              ...text,
              description:
                'Why data and body are missing: the body was refused (`body refused (400): …`), or could not be stored. Such an entry cannot be replayed.',
            },
            redacted: {
              type: 'array',
              items: text,
              description:
                'Where credentials were taken out of the data or the query (e.g. data.user.password): such an entry cannot be replayed.',
            },
          },
        },
        response: { type: ['object', 'null'], properties: { body: {}, truncated } },
      },
      additionalProperties: false,
    },
    TickerMessage: {
      type: 'object',
      required: ['at', 'kind', 'message'],
      properties: { at: { type: 'string', format: 'date-time' }, kind: text, message: text, data: { type: 'object' } },
    },
    WebhookResponse: {
      type: 'object',
      required: ['status', 'headers', 'body'],
      properties: {
        status: { type: 'integer' },
        headers: { type: 'object', additionalProperties: text },
        body: { type: 'string', description: 'The raw body as text.' },
      },
    },
  };
}

export function webhookConsolePaths(snapshot: Snapshot): Record<string, unknown> {
  const ids = [...snapshot.webhooks.keys()];
  const webhookId = {
    name: 'webhookId',
    in: 'path',
    required: true,
    schema: ids.length ? { type: 'string', enum: ids } : { type: 'string' },
  };
  const entryId = { name: 'entryId', in: 'path', required: true, schema: { type: 'string' } };
  const query = (name: string, description: string, schema: unknown, extra: Record<string, unknown> = {}) => ({
    name,
    in: 'query',
    required: false,
    schema,
    description,
    ...extra,
  });
  const time = { type: 'string', description: `ISO 8601: ${queryTimeForm}.` };
  const errors = {
    401: ref('Unauthorized'),
    403: ref('Forbidden'),
    404: problem('Unknown webhook or log entry.'),
    default: ref('Problem'),
  };
  const entry = { description: 'The entry.', content: json({ $ref: '#/components/schemas/WebhookLogEntry' }) };
  const notReplayable = problem('The entry is not pinned, or its payload was not kept whole.');
  const base = '/api/console/webhooks/{webhookId}';
  return {
    [`${base}/log`]: {
      get: {
        operationId: 'webhookLog',
        summary: 'Log entries of a webhook, newest first, filtered and paged (scope console); unknown parameters are refused.',
        tags: ['console'],
        parameters: [
          webhookId,
          query('limit', 'Entries per page.', { type: 'integer', minimum: 1, maximum: maxLogPageSize, default: defaultLogPageSize }),
          query('cursor', 'The `next` of the previous page, with the same filters; absent for the first (newest) page.', text),
          query('pinned', 'true: pinned entries only.', { enum: ['true', 'false'] }),
          query(
            'status',
            'Only entries that answered these HTTP statuses: classes (`2xx`, `4xx`) or codes (`404`), the parameter repeated or comma-separated.',
            { type: 'array', items: { type: 'string', pattern: '^([1-5]xx|[1-5][0-9]{2})$' } },
            { style: 'form', explode: true },
          ),
          query(
            'origin',
            'Only entries of these origins: `call` (a call of the webhook URL), `test`, `replay`; repeated or comma-separated.',
            { type: 'array', items: { enum: [...callOrigins] } },
            { style: 'form', explode: true },
          ),
          query('from', 'Only entries at or after this time.', time),
          query('to', 'Only entries before this time; after from.', time),
        ],
        responses: {
          200: {
            description: 'A page of entries.',
            content: json({
              type: 'object',
              required: ['entries', 'next'],
              properties: {
                entries: { type: 'array', items: { $ref: '#/components/schemas/WebhookLogSummary' } },
                next: {
                  ...nullableText,
                  description: 'Pass as `cursor`, with the same filters, for the next (older) page; null on the last page.',
                },
              },
            }),
          },
          400: ref('BadRequest'),
          ...errors,
        },
      },
    },
    [`${base}/log/{entryId}`]: {
      get: {
        operationId: 'webhookLogEntry',
        summary: 'One log entry with its ticker, payload and response (scope console).',
        tags: ['console'],
        parameters: [webhookId, entryId],
        responses: { 200: entry, ...errors },
      },
    },
    [`${base}/log/{entryId}/pin`]: {
      post: {
        operationId: 'pinWebhookLogEntry',
        summary: 'Pin an entry: kept past the retention, and replayable (scope console).',
        tags: ['console'],
        parameters: [webhookId, entryId],
        responses: { 200: entry, ...errors },
      },
      delete: {
        operationId: 'unpinWebhookLogEntry',
        summary: 'Unpin an entry (scope console).',
        tags: ['console'],
        parameters: [webhookId, entryId],
        responses: { 200: entry, ...errors },
      },
    },
    [`${base}/log/{entryId}/replay`]: {
      post: {
        operationId: 'replayWebhookLogEntry',
        summary:
          'Send the request of a pinned entry to the webhook again, for real; logged as a new entry naming this one (scope console).',
        tags: ['console'],
        parameters: [webhookId, entryId],
        responses: {
          200: {
            description: 'What the webhook answered.',
            content: json({
              type: 'object',
              required: ['entryId', 'replayOf', 'response'],
              properties: { entryId: text, replayOf: text, response: { $ref: '#/components/schemas/WebhookResponse' } },
            }),
          },
          409: notReplayable,
          ...errors,
        },
      },
    },
    [`${base}/test`]: {
      post: {
        operationId: 'testWebhook',
        summary: 'Call the webhook for real with typed JSON or a pinned entry; stream the ticker live and the response (scope console).',
        description:
          'Server-sent events: `sent` (what is sent; secrets redacted), `ticker` (one per ticker message, as it happens), then `response` (status, headers, raw body, logEntryId, and queueItemId when the action queued a sync) or `error`. When the action queued a sync and the client may read its items (scope queue:read, the sync on its allow-list), the stream goes on with that run until it is Complete or Failed: the events of GET /api/queue/{queueId}/events prefixed `run.` (`run.item`, `run.progress`, `run.done`, `run.expired`, `run.error`), or `run.unavailable` (`{ID, message}`) when the process already serves its most event streams. Otherwise it ends after the response.',
        tags: ['console'],
        parameters: [webhookId],
        requestBody: {
          required: true,
          content: json({
            oneOf: [
              { type: 'object', required: ['data'], properties: { data: {} }, additionalProperties: false },
              { type: 'object', required: ['pin'], properties: { pin: { type: 'string', minLength: 1 } }, additionalProperties: false },
            ],
          }),
        },
        responses: {
          200: { description: 'The event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          400: ref('BadRequest'),
          409: notReplayable,
          413: ref('TooLarge'),
          415: ref('UnsupportedMediaType'),
          ...errors,
        },
      },
    },
  };
}
