/**
 * The webhook routes of the operator console (scope `console`), the API the console's webhook
 * pages and the test dialog use (DESIGN §9), and `syncline webhook test`:
 *
 *   GET    /api/console/webhooks/:id/log                      entries, newest first, filtered (webhook-log-query.ts)
 *   GET    /api/console/webhooks/:id/log/:entryId             one entry: ticker, payload, response
 *   POST   /api/console/webhooks/:id/log/:entryId/pin         pin (kept past the retention)
 *   DELETE /api/console/webhooks/:id/log/:entryId/pin         unpin
 *   POST   /api/console/webhooks/:id/log/:entryId/replay      run a pinned entry's request again
 *   POST   /api/console/webhooks/:id/test                     {data} or {pin}; server-sent events
 *
 * The seed's test function "goes to the real webhook URL and triggers all configured actions for
 * real; it is not a simulation". Test and replay run the request through `executeWebhook`, the
 * very code the route /api/webhooks/:id runs after reading the HTTP request (security, condition,
 * action, redirect, log), in this process: the same path without a second trip through the
 * network stack, and with the ticker of the call observable live on `tickerBus`. Their entries in
 * the log say `origin: test` or `replay` and name the entry they repeat.
 *
 * The test stream's events, in order: `sent` (what is sent; the secret the console adds is shown
 * redacted), one `ticker` per ticker message as it happens, then `response` (status, headers and
 * the raw body as text) — or `error` when the call could not run at all. What they show is
 * redacted as the log entry is (webhooks/log/redact.ts): the console shows no credential the log
 * would not keep.
 *
 * When the action queued a sync (the answer names its queue item), the stream goes on with that
 * run, as GET /api/queue/{id}/events streams it, its event names prefixed `run.` (`run.item`,
 * `run.progress`, `run.done`, item-events.ts) until it is Complete or Failed: the seed's ticker
 * shows what the call did, and an operator testing a webhook wants to see what it started. Only
 * for a client that may read that item (scope queue:read, the sync on its allow-list), as GetAction
 * would answer it; otherwise, or when every event stream place is taken (`run.unavailable`), the
 * stream ends after the response as it does when nothing was queued.
 */
import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Snapshot, WebhookEntry } from '../../definitions/snapshot.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { HttpProblem } from '../errors.js';
import type { Logger } from '../log.js';
import { noteCallOrigin, type CallOrigin } from '../webhooks/log/call-origin.js';
import { requestFromData, requestFromPayload } from '../webhooks/log/console-request.js';
import { getLogEntry, listLogEntries, setPinned, type LogEntry } from '../webhooks/log/log-entries.js';
import { redactHeaders, redactionOf, redactValue, type Redaction } from '../webhooks/log/redact.js';
import { signatureHeaderOf } from '../webhooks/signatures/index.js';
import { tickerBus, type TickerMessage } from '../webhooks/ticker.js';
import type { WebhookRequest } from '../webhooks/webhook-call.js';
import { getItem } from '../queue/get-item.js';
import { requireScope, type Principal } from './auth.js';
import { ConsoleVisibility } from './console-visibility.js';
import { openEventStream, type EventStream } from './event-stream.js';
import { relayItem, type EventStreamSlots } from './item-events.js';
import { mayRead } from './resolve-process.js';
import { readJsonBody } from '../request/read-body.js';
import { requestIdOf, requestLogger } from './request-id.js';
import { parseWebhookLogQuery } from './webhook-log-query.js';

/** What a webhook call answered, as the caller of the URL would have received it. */
export interface ExecutedWebhookCall {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** The body: JSON data (sent as JSON text), text, raw bytes, or nothing (204, redirects). */
  body?: unknown;
  /** The (first) queue item the call's action created; the test stream follows its run. */
  queueItemId?: string;
}

/**
 * Runs one webhook call in this process exactly as the HTTP route does (the endpoint's
 * `executeWebhook`), including recording it in the log; `callId` becomes the ticker's and the
 * log entry's id.
 */
export type RunWebhook = (
  webhookId: string,
  request: WebhookRequest,
  options: { callId: string; signal?: AbortSignal; requestId?: string },
) => Promise<ExecutedWebhookCall>;

export interface WebhookConsoleOptions {
  db: RuntimeDatabase;
  log: Logger;
  runWebhook: RunWebhook;
  bodyLimit: number;
  /** SHA-256 of the admin token, redacted like every token. */
  adminTokenHash?: Buffer;
  /** The process's places for event streams; a relayed run holds one while it is followed. */
  eventStreams: EventStreamSlots;
}

export function webhookConsoleRoutes(
  router: Router,
  { db, log, runWebhook, bodyLimit, adminTokenHash, eventStreams }: WebhookConsoleOptions,
): void {
  const base = '/console/webhooks/:webhookId';
  const redactionFor = (ctx: Context, webhook: WebhookEntry): Redaction => {
    const signature = webhook.definition.signature;
    return redactionOf(webhook, ctx.state.snapshot as Snapshot, signature && signatureHeaderOf(signature), adminTokenHash);
  };

  router.get(`${base}/log`, async (ctx) => {
    const webhook = consoleWebhook(ctx);
    ctx.body = await listLogEntries(db, webhook.definition.id, parseWebhookLogQuery(ctx.query));
  });

  router.get(`${base}/log/:entryId`, async (ctx) => {
    const webhook = consoleWebhook(ctx);
    ctx.body = await entryOf(db, webhook, ctx.params.entryId!);
  });

  const pin = (pinned: boolean) => async (ctx: Context) => {
    const webhook = consoleWebhook(ctx);
    const entryId = ctx.params.entryId!;
    if (!(await setPinned(db, webhook.definition.id, entryId, pinned))) throw unknownEntry(webhook, entryId);
    ctx.body = await entryOf(db, webhook, entryId);
  };
  router.post(`${base}/log/:entryId/pin`, pin(true));
  router.delete(`${base}/log/:entryId/pin`, pin(false));

  router.post(`${base}/log/:entryId/replay`, async (ctx) => {
    const webhook = consoleWebhook(ctx);
    const entry = await entryOf(db, webhook, ctx.params.entryId!);
    const request = replayableRequest(webhook, entry);
    const callId = randomUUID();
    noteCallOrigin(callId, { origin: 'replay', replayOf: entry.id });
    const answer = await runWebhook(webhook.definition.id, request, { callId, ...requestIdOption(ctx) });
    ctx.body = { entryId: callId, replayOf: entry.id, response: responseJson(answer, redactionFor(ctx, webhook)) };
  });

  router.post(`${base}/test`, async (ctx) => {
    const webhook = consoleWebhook(ctx);
    const body = await readJsonBody(ctx, bodyLimit);
    const { request, origin } = await testRequest(db, webhook, body);
    const callId = randomUUID();
    noteCallOrigin(callId, origin);

    const redaction = redactionFor(ctx, webhook);
    const stream = openEventStream(ctx);
    // Subscribed before the call starts, so not even its first message is missed.
    const onTicker = (message: TickerMessage) => stream.send('ticker', message);
    tickerBus.on(callId, onTicker);
    stream.send('sent', {
      callId,
      webhookId: webhook.definition.id,
      url: `/api/webhooks/${webhook.definition.id}`,
      method: request.method,
      headers: redactHeaders(request.headers, redaction),
      query: redactValue(request.query, redaction),
      data: redactValue(request.data, redaction),
      ...(origin.replayOf === undefined ? {} : { pin: origin.replayOf }),
    });
    // Not awaited: Koa starts streaming the response when this handler returns.
    void runWebhook(webhook.definition.id, request, { callId, signal: stream.signal, ...requestIdOption(ctx) })
      .then(async (answer) => {
        tickerBus.off(callId, onTicker);
        const queued = answer.queueItemId === undefined ? {} : { queueItemId: answer.queueItemId };
        stream.send('response', { ...responseJson(answer, redaction), logEntryId: callId, ...queued });
        if (answer.queueItemId !== undefined) await followRun(ctx, stream, answer.queueItemId);
      })
      .catch((error: unknown) => {
        requestLogger(ctx, log).error({ err: error, webhookId: webhook.definition.id, callId }, 'webhook test failed');
        stream.send('error', { message: 'The call failed on the server; the log has the details.', logEntryId: callId });
      })
      .finally(() => {
        tickerBus.off(callId, onTicker);
        stream.end();
      });
  });

  /** Relays the run the tested call queued, when the client may read it and a place is free. */
  const followRun = async (ctx: Context, stream: EventStream, queueItemId: string): Promise<void> => {
    const principal = ctx.state.principal as Principal;
    const item = await getItem(db, queueItemId);
    if (item === undefined || !principal.scopes.has('queue:read') || !mayRead(principal, ctx.state.snapshot as Snapshot, item.processId))
      return;
    const release = eventStreams.tryAcquire();
    if (release === undefined) {
      stream.send('run.unavailable', {
        ID: item.id,
        message: `This process already serves ${eventStreams.settings.maxStreams} event streams; follow the run with GET /api/GetAction/${item.id}.`,
      });
      return;
    }
    try {
      await relayItem(stream, item, { db, slots: eventStreams, log: requestLogger(ctx, log), prefix: 'run.' });
    } finally {
      release();
    }
  };
}

/**
 * The webhook named in the path, for a client with the `console` scope that may see it (its sync,
 * flow and system on the client's allow-lists, console-visibility.ts). One it may not see is
 * answered as an unknown id: its log holds what others sent, and its test and replay run its
 * action — a process or system the client may not start or write otherwise.
 */
function consoleWebhook(ctx: Context): WebhookEntry {
  const principal = requireScope(ctx, 'console');
  const id = ctx.params.webhookId!;
  const snapshot = ctx.state.snapshot as Snapshot;
  const webhook = snapshot.webhooks.get(id);
  if (!webhook || !new ConsoleVisibility(principal, snapshot).webhook(webhook))
    throw new HttpProblem('unknown-webhook', `No webhook ${JSON.stringify(id)} is defined.`);
  return webhook;
}

async function entryOf(db: RuntimeDatabase, webhook: WebhookEntry, entryId: string): Promise<LogEntry> {
  const entry = await getLogEntry(db, webhook.definition.id, entryId);
  if (!entry) throw unknownEntry(webhook, entryId);
  return entry;
}

function unknownEntry(webhook: WebhookEntry, entryId: string): HttpProblem {
  return new HttpProblem(
    'unknown-log-entry',
    `Webhook ${webhook.definition.id} has no log entry ${JSON.stringify(entryId)} (entries past the retention are deleted unless pinned).`,
  );
}

/** The request of a pinned entry that kept its whole payload; 409 otherwise. */
function replayableRequest(webhook: WebhookEntry, entry: LogEntry): WebhookRequest {
  if (!entry.pinned)
    throw new HttpProblem('not-replayable', `Log entry ${entry.id} is not pinned; pin it first (POST …/log/${entry.id}/pin).`);
  const request = requestFromPayload(webhook.definition, entry.method, entry.payload);
  if (!request) {
    const payload = entry.payload;
    const why =
      payload === null
        ? 'its payload was not kept (the webhook has logPayload off)'
        : payload.note !== undefined
          ? payload.note
          : payload.truncated !== undefined
            ? 'its payload was too large and was kept cut'
            : `credentials were taken out of it (${(payload.redacted ?? []).join(', ')}), and a replay would send [redacted] in their place; send the call again with its values, e.g. with \`syncline webhook test ${webhook.definition.id} --data FILE\``;
    throw new HttpProblem('not-replayable', `Log entry ${entry.id} cannot be replayed: ${why}.`);
  }
  return request;
}

async function testRequest(
  db: RuntimeDatabase,
  webhook: WebhookEntry,
  body: unknown,
): Promise<{ request: WebhookRequest; origin: CallOrigin }> {
  const fields = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const keys = fields ? Object.keys(fields) : [];
  if (!fields || keys.length !== 1 || !(keys[0] === 'data' || keys[0] === 'pin')) {
    throw new HttpProblem('invalid-request', 'Send {"data": <the JSON to send>} or {"pin": "<log entry id>"}.', {
      errors: [{ path: '', message: 'exactly one of data, pin' }],
    });
  }
  if ('data' in fields) return { request: requestFromData(webhook.definition, fields.data), origin: { origin: 'test' } };
  if (typeof fields.pin !== 'string' || fields.pin === '')
    throw new HttpProblem('invalid-request', 'pin is the id of a pinned log entry.', {
      errors: [{ path: '/pin', message: 'a log entry id' }],
    });
  const entry = await entryOf(db, webhook, fields.pin);
  return { request: replayableRequest(webhook, entry), origin: { origin: 'test', replayOf: entry.id } };
}

function responseJson(
  answer: ExecutedWebhookCall,
  redaction: Redaction,
): { status: number; headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  // The body as the caller of the URL received it: JSON data goes out as JSON text.
  const text =
    answer.body === undefined
      ? ''
      : Buffer.isBuffer(answer.body)
        ? answer.body.toString('utf8')
        : typeof answer.body === 'string'
          ? answer.body
          : JSON.stringify(answer.body);
  return { status: answer.status, headers, body: redactedBody(text, headers['content-type'] ?? '', redaction) };
}

/** A JSON body with names and values redacted as the log keeps it; any other text, its values. */
function redactedBody(text: string, contentType: string, redaction: Redaction): string {
  if (/json/i.test(contentType)) {
    try {
      return JSON.stringify(redactValue(JSON.parse(text) as unknown, redaction));
    } catch {
      // Not JSON after all: judged as text below.
    }
  }
  return redaction.values.redact(text);
}

/** The console request's id, for the call it makes: its log entry and what it starts name the request. */
function requestIdOption(ctx: Context): { requestId?: string } {
  const id = requestIdOf(ctx);
  return id === undefined ? {} : { requestId: id };
}
