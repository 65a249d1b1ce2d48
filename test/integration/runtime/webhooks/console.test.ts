/**
 * The console's webhook routes over HTTP: the test function's server-sent events (sent, the
 * ticker live, then the response), pins, replay of a pinned entry as a new entry naming it, and
 * who may use them (scope console). The webhook call itself runs through the in-process runner
 * the app is given (stand-in-endpoint.ts until the endpoint's executeWebhook is wired).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readEventStream } from '../../../../runtime/cli/read-event-stream.js';
import { sha256 } from '../../../../runtime/http/auth.js';
import { quickstartApp, tokens, type HttpApp } from '../../../support/http-app.js';
import { logWebhookFiles, quickstartSecret, record, webhooks } from './log-fixture.js';
import { standInEndpoint } from './stand-in-endpoint.js';

interface Received {
  event: string;
  data: any;
  /** ms since the request was sent. */
  atMs: number;
}

/** Console clients with allow-lists: one that may not start the quickstart webhooks' sync, one that may. */
const otherSyncsToken = 'other-syncs-console-token-0123456789-never-logged';
const ownSyncToken = 'own-sync-console-token-0123456789-never-logged';
const restrictedClients = `kind: ApiClient
id: test-other-syncs-console
tokenSha256: ${sha256(otherSyncsToken).toString('hex')}
scopes: [console, queue:read]
syncs: []
---
kind: ApiClient
id: test-own-sync-console
tokenSha256: ${sha256(ownSyncToken).toString('hex')}
scopes: [console]
syncs: [crm-customers-to-erp]
`;

describe('webhook console routes', () => {
  let app: HttpApp;
  let calls = 0;
  before(async () => {
    app = await quickstartApp({
      files: { ...logWebhookFiles, 'console-clients.yaml': restrictedClients },
      runWebhook: (parts) => {
        const run = standInEndpoint(parts);
        return (...args) => {
          calls += 1;
          return run(...args);
        };
      },
    });
  });
  after(() => app.close());

  async function test(
    webhookId: string,
    body: unknown,
    token: string = tokens.admin,
  ): Promise<{ status: number; type: string; events: Received[] }> {
    const started = performance.now();
    const response = await fetch(`${app.base}/api/console/webhooks/${webhookId}/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!;
    if (type !== 'text/event-stream')
      return { status: response.status, type, events: [{ event: 'problem', data: await response.json(), atMs: 0 }] };
    const events: Received[] = [];
    for await (const event of readEventStream(response.body!))
      events.push({ event: event.event, data: JSON.parse(event.data), atMs: performance.now() - started });
    return { status: response.status, type, events };
  }

  it('streams sent, then each ticker message as it happens, then the response; the call is logged as a test', async () => {
    const data = { id: 3, event: 'customer.updated' };
    const { status, events } = await test(webhooks.quickstart, { data });
    assert.equal(status, 200);
    assert.deepEqual(
      events.map((e) => e.event),
      ['sent', 'ticker', 'ticker', 'ticker', 'ticker', 'response'],
    );
    const [sent, ...rest] = events;
    assert.deepEqual(sent!.data.data, data);
    assert.equal(sent!.data.method, 'POST');
    assert.equal(sent!.data.url, `/api/webhooks/${webhooks.quickstart}`);
    assert.equal(sent!.data.headers.service_webhooksecret, '[redacted]', 'the secret the console adds is never shown');
    assert.ok(!JSON.stringify(events).includes(quickstartSecret));
    const ticker = rest.filter((e) => e.event === 'ticker');
    assert.deepEqual(
      ticker.map((e) => e.data.kind),
      ['start', 'filter', 'queued', 'done'],
    );
    const response = events.at(-1)!;
    assert.equal(response.data.status, 200);
    assert.equal(response.data.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(JSON.parse(response.data.body), { received: data });
    // Live: the first message arrived well before the call ended (the stand-in pauses 60 ms).
    assert.ok(ticker[0]!.atMs < response.atMs - 40, `first ticker at ${ticker[0]!.atMs} ms, response at ${response.atMs} ms`);

    const entry = await app.get(`/api/console/webhooks/${webhooks.quickstart}/log/${response.data.logEntryId}`);
    assert.equal(entry.status, 200, entry.text);
    assert.equal(entry.json.id, sent!.data.callId);
    assert.equal(entry.json.origin, 'test');
    assert.deepEqual(
      entry.json.ticker,
      ticker.map((e) => e.data),
      'the log keeps what was streamed',
    );
    assert.equal(entry.json.payload.headers.service_webhooksecret, '[redacted]');
  });

  it('shows a refusal of the webhook (410 when inactive) as its response rather than failing the stream', async () => {
    const { status, events } = await test(webhooks.inactive, { data: { id: 1 } });
    assert.equal(status, 200);
    assert.equal(events[0]!.event, 'sent');
    assert.equal(events.at(-1)!.event, 'response');
    assert.equal(events.at(-1)!.data.status, 410);
  });

  it('pins and unpins; replays only a pinned entry, as a new entry that names it', async () => {
    const id = await record(app, webhooks.quickstart, {
      request: {
        method: 'POST',
        data: { id: 9, event: 'x' },
        query: { q: '1' },
        headers: { 'content-type': 'application/json', service_webhooksecret: quickstartSecret },
        rawBody: Buffer.from('{"id":9,"event":"x"}'),
      },
    });
    const path = `/api/console/webhooks/${webhooks.quickstart}/log/${id}`;
    assert.equal((await app.post(`${path}/replay`)).status, 409, 'not pinned');
    const pinned = await app.post(`${path}/pin`);
    assert.equal(pinned.status, 200, pinned.text);
    assert.equal(pinned.json.pinned, true);
    assert.equal((await app.post(`${path}/pin`)).json.pinned, true, 'pinning twice is fine');

    const replay = await app.post(`${path}/replay`);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.json.replayOf, id);
    // The stand-in answers 200 only with the secret: the console sent it although the log had it redacted.
    assert.equal(replay.json.response.status, 200);
    assert.deepEqual(JSON.parse(replay.json.response.body), { received: { id: 9, event: 'x' } });
    const again = await app.get(`/api/console/webhooks/${webhooks.quickstart}/log/${replay.json.entryId}`);
    assert.equal(again.json.origin, 'replay');
    assert.equal(again.json.replayOf, id);
    assert.deepEqual(again.json.payload.query, { q: '1' });
    assert.equal(again.json.payload.body, '{"id":9,"event":"x"}');

    const { events } = await test(webhooks.quickstart, { pin: id });
    assert.deepEqual(events[0]!.data.pin, id);
    assert.deepEqual(events[0]!.data.data, { id: 9, event: 'x' });
    assert.equal(events.at(-1)!.data.status, 200);
    const tested = await app.get(`/api/console/webhooks/${webhooks.quickstart}/log/${events.at(-1)!.data.logEntryId}`);
    assert.equal(tested.json.origin, 'test');
    assert.equal(tested.json.replayOf, id);

    const unpinned = await app.call('DELETE', `${path}/pin`);
    assert.equal(unpinned.json.pinned, false);
    assert.equal((await app.post(`${path}/replay`)).status, 409);
    assert.equal((await test(webhooks.quickstart, { pin: id })).status, 409);
  });

  it('refuses to replay an entry whose payload was not kept', async () => {
    const id = await record(app, webhooks.noPayload);
    await app.post(`/api/console/webhooks/${webhooks.noPayload}/log/${id}/pin`);
    const replay = await app.post(`/api/console/webhooks/${webhooks.noPayload}/log/${id}/replay`);
    assert.equal(replay.status, 409);
    assert.match(replay.json.detail, /logPayload off/);
  });

  it('answers problems for bad test bodies, unknown webhooks and entries', async () => {
    for (const body of [{}, { data: 1, pin: 'x' }, { pin: 3 }, [], { other: 1 }]) {
      const answer = await app.post(`/api/console/webhooks/${webhooks.quickstart}/test`, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
    }
    assert.equal((await app.post(`/api/console/webhooks/${webhooks.quickstart}/test`, { pin: 'nope' })).status, 404);
    assert.equal((await app.post('/api/console/webhooks/wh_unknown/test', { data: {} })).json.title, 'Unknown webhook');
    assert.equal((await app.get('/api/console/webhooks/wh_unknown/log')).status, 404);
    assert.equal((await app.get(`/api/console/webhooks/${webhooks.quickstart}/log/nope`)).json.title, 'Unknown log entry');
    assert.equal((await app.post(`/api/console/webhooks/${webhooks.quickstart}/log/nope/pin`)).status, 404);
  });

  it("answers a webhook whose sync is off the client's allow-list as unknown on every route, and runs nothing", async () => {
    const id = await record(app, webhooks.quickstart);
    const path = `/api/console/webhooks/${webhooks.quickstart}/log/${id}`;
    await app.post(`${path}/pin`);
    const base = `/api/console/webhooks/${webhooks.quickstart}`;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `${base}/log`],
      ['GET', path],
      ['POST', `${path}/pin`],
      ['DELETE', `${path}/pin`],
      ['POST', `${path}/replay`],
      ['POST', `${base}/test`, { data: { id: 1 } }],
      ['POST', `${base}/test`, { pin: id }],
    ];
    const before = calls;
    for (const [method, route, body] of routes) {
      const refused = await app.call(method, route, { token: otherSyncsToken, ...(body === undefined ? {} : { body }) });
      assert.equal(refused.status, 404, `${method} ${route}: ${refused.text}`);
      assert.equal(refused.json.title, 'Unknown webhook');
    }
    assert.equal(calls, before, 'no test or replay ran the webhook');
    assert.equal((await app.get(path)).json.pinned, true, 'the pin stays as it was');
    const allowed = await app.call('GET', `${base}/log`, { token: ownSyncToken });
    assert.equal(allowed.status, 200, allowed.text);
    assert.ok(allowed.json.entries.some((entry: { id: string }) => entry.id === id));
    const replay = await app.call('POST', `${path}/replay`, { token: ownSyncToken });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(calls, before + 1);
  });

  it('needs a token (401) with the console scope (403) on every route', async () => {
    const id = await record(app, webhooks.quickstart);
    const base = `/api/console/webhooks/${webhooks.quickstart}`;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `${base}/log`],
      ['GET', `${base}/log/${id}`],
      ['POST', `${base}/log/${id}/pin`],
      ['DELETE', `${base}/log/${id}/pin`],
      ['POST', `${base}/log/${id}/replay`],
      ['POST', `${base}/test`, { data: {} }],
    ];
    for (const [method, path, body] of routes) {
      const anonymous = await app.call(method, path, { token: null, ...(body === undefined ? {} : { body }) });
      assert.equal(anonymous.status, 401, `${method} ${path}`);
      for (const token of [tokens.reader, tokens.operator, tokens.queueWriter]) {
        const refused = await app.call(method, path, { token, ...(body === undefined ? {} : { body }) });
        assert.equal(refused.status, 403, `${method} ${path}: ${refused.text}`);
        assert.match(refused.json.detail, /scope console/);
      }
    }
  });
});

describe('webhook console routes with the real endpoint', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp();
  });
  after(() => app.close());

  it('tests the quickstart webhook for real: a queue item is created, and the log entry names it', async () => {
    const response = await fetch(`${app.base}/api/console/webhooks/${webhooks.quickstart}/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { id: 3, event: 'customer.updated' } }),
    });
    const events: Array<{ event: string; data: any }> = [];
    // No daemon runs here, so the queued item stays Pending and the stream would follow it for
    // its whole life: read up to the first event of the run, then hang up (which stops it).
    for await (const event of readEventStream(response.body!)) {
      events.push({ event: event.event, data: JSON.parse(event.data) });
      if (event.event === 'run.item') break;
    }
    const run = events.pop()!;
    assert.equal(run.event, 'run.item', 'the stream goes on with the queued run');
    assert.equal(events[0]!.event, 'sent');
    assert.equal(events.at(-1)!.event, 'response');
    const tickers = events.slice(1, -1);
    assert.ok(tickers.length >= 2 && tickers.every((e) => e.event === 'ticker'), JSON.stringify(events));
    assert.equal(tickers[0]!.data.kind, 'start');
    const answer = events.at(-1)!.data;
    assert.equal(answer.status, 200, answer.body);
    const item = JSON.parse(answer.body);
    assert.equal(item.Status, 'Pending');
    assert.equal(answer.queueItemId, item.ID, 'the response names the queued item');
    assert.equal(run.data.ID, item.ID);
    assert.equal(run.data.Status, 'Pending');
    const entry = await app.get(`/api/console/webhooks/${webhooks.quickstart}/log/${answer.logEntryId}`);
    assert.equal(entry.json.queueItemId, item.ID);
    assert.equal(entry.json.origin, 'test');
    assert.deepEqual(
      entry.json.ticker,
      tickers.map((e) => e.data),
    );
    assert.equal((await app.get(`/api/GetAction/${item.ID}`)).json.ProcessId, 'crm-customers-to-erp');
  });

  it('replays a pinned call of the webhook URL, with the secret the log redacted', async () => {
    const call = await app.call('POST', `/api/webhooks/${webhooks.quickstart}`, {
      token: null,
      body: { id: 2, event: 'customer.created' },
      headers: { service_webhooksecret: quickstartSecret },
    });
    assert.equal(call.status, 200, call.text);
    const list = await app.get(`/api/console/webhooks/${webhooks.quickstart}/log?limit=1`);
    const original = list.json.entries[0];
    assert.equal(original.queueItemId, call.json.ID);
    const stored = await app.get(`/api/console/webhooks/${webhooks.quickstart}/log/${original.id}`);
    assert.equal(stored.json.payload.headers.service_webhooksecret, '[redacted]');
    await app.post(`/api/console/webhooks/${webhooks.quickstart}/log/${original.id}/pin`);
    const replay = await app.post(`/api/console/webhooks/${webhooks.quickstart}/log/${original.id}/replay`);
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.json.response.status, 200, replay.json.response.body);
    const again = JSON.parse(replay.json.response.body);
    assert.notEqual(again.ID, call.json.ID, 'a new queue item');
    const entry = await app.get(`/api/console/webhooks/${webhooks.quickstart}/log/${replay.json.entryId}`);
    assert.equal(entry.json.replayOf, original.id);
    assert.equal(entry.json.queueItemId, again.ID);
  });

  it('streams a refusal of the webhook (400 for data outside its request schema) as the response', async () => {
    const response = await fetch(`${app.base}/api/console/webhooks/${webhooks.quickstart}/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { id: 'three' } }),
    });
    const events: Array<{ event: string; data: any }> = [];
    for await (const event of readEventStream(response.body!)) events.push({ event: event.event, data: JSON.parse(event.data) });
    assert.equal(events.at(-1)!.event, 'response');
    assert.equal(events.at(-1)!.data.status, 400);
    assert.equal(events.at(-1)!.data.headers['content-type'].split(';')[0], 'application/problem+json');
  });
});
