/**
 * The webhook call log on every engine: what an entry keeps with and without logPayload, every
 * credential header and query parameter redacted (in the answer and in the stored row), the size
 * cap, retention that keeps pinned entries, paging newest first, and the list's filters (status,
 * origin, time) alone, together and across pages. Calls are recorded with
 * recordWebhookCall, as the endpoint records them; entries are read through the console API.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { noteCallOrigin } from '../../../../runtime/webhooks/log/call-origin.js';
import { payloadLimit } from '../../../../runtime/webhooks/log/record-call.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type HttpApp } from '../../../support/http-app.js';
import { logWebhookFiles, record, webhooks } from './log-fixture.js';

const secrets = {
  authorization: 'Bearer authorization-secret-1',
  cookie: 'session=cookie-secret-2',
  service_webhooksecret: 'webhook-secret-3',
  'x-hub-signature': 'sha1=hub-signature-secret-4',
  'x-hub-signature-256': 'sha256=hub-signature-secret-5',
  'stripe-signature': 't=1,v1=stripe-signature-secret-6',
  'x-slack-signature': 'v0=slack-signature-secret-7',
  'x-zm-signature': 'v0=zoom-signature-secret-8',
  'x-acme-auth': 'configured-signature-secret-9',
  'x-api-key': 'api-key-secret-10',
};

await describeEachDatabase('webhook log', (database) => {
  describe('through the console API', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), { files: logWebhookFiles });
    });
    after(() => app.close());

    const entry = async (webhookId: string, id: string) => {
      const answer = await app.get(`/api/console/webhooks/${webhookId}/log/${id}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.json;
    };

    it('keeps time, status, duration, queue item and ticker, and the payload with every credential redacted', async () => {
      const data = { id: 7, event: 'customer.updated' };
      const id = await record(app, webhooks.signed, {
        request: {
          method: 'POST',
          data,
          query: { source: 'crm', 'hub.verify_token': 'verify-token-secret-11' },
          headers: { ...secrets, 'content-type': 'application/json', 'user-agent': 'crm/1.0' },
          rawBody: Buffer.from(JSON.stringify(data)),
        },
      });
      const logged = await entry(webhooks.signed, id);
      assert.equal(logged.id, id);
      assert.equal(logged.webhookId, webhooks.signed);
      assert.equal(logged.method, 'POST');
      assert.equal(logged.status, 200);
      assert.equal(logged.durationMs, 12);
      assert.equal(logged.queueItemId, '00000000-0000-4000-8000-000000000001');
      assert.deepEqual(
        logged.ticker.map((m: { kind: string }) => m.kind),
        ['start', 'queued'],
      );
      assert.ok(Math.abs(Date.parse(logged.at) - Date.now()) < 60_000);
      assert.equal(logged.pinned, false);
      assert.equal(logged.origin, null);
      for (const name of Object.keys(secrets)) assert.equal(logged.payload.headers[name], '[redacted]', name);
      assert.equal(logged.payload.headers['content-type'], 'application/json');
      assert.equal(logged.payload.headers['user-agent'], 'crm/1.0');
      assert.deepEqual(logged.payload.query, { source: 'crm', 'hub.verify_token': '[redacted]' });
      assert.deepEqual(logged.payload.data, data);
      assert.equal(logged.payload.body, JSON.stringify(data), 'the body lost nothing and is kept');
      assert.deepEqual(logged.response.body, { ID: '00000000-0000-4000-8000-000000000001', Status: 'Pending' });
      // A replay would send [redacted] as the query parameter's value.
      assert.deepEqual(logged.payload.redacted, ['query.hub.verify_token']);
      assert.equal(logged.replayable, false);

      const stored = JSON.stringify(await database().admin('webhook_log').where({ id }).first());
      for (const value of [...Object.values(secrets), 'verify-token-secret-11'])
        assert.ok(!stored.includes(value), `${value} is not stored`);
    });

    it('keeps no payload and no response body when the webhook does not log payloads', async () => {
      const id = await record(app, webhooks.noPayload, {
        request: { method: 'GET', data: { a: 'b' }, query: { a: 'b' }, headers: { authorization: 'Bearer x' }, rawBody: Buffer.alloc(0) },
        method: 'GET',
        status: 204,
        response: { status: 204 },
      });
      const logged = await entry(webhooks.noPayload, id);
      assert.equal(logged.status, 204);
      assert.equal(logged.method, 'GET');
      assert.equal(logged.payload, null);
      assert.equal(logged.response, null);
      assert.equal(logged.hasPayload, false);
      assert.equal(logged.replayable, false);
      assert.equal(logged.ticker.length, 2, 'the ticker is kept either way');
      const row = await database().admin('webhook_log').where({ id }).first();
      assert.equal(row.payload, null);
      assert.equal(row.response, null);
    });

    it(`cuts a payload or response over ${payloadLimit} bytes and says so; a cut entry cannot be replayed`, async () => {
      const big = { text: 'x'.repeat(payloadLimit + 10) };
      const raw = Buffer.from(JSON.stringify(big));
      const id = await record(app, webhooks.quickstart, {
        request: { method: 'POST', data: big, query: {}, headers: { 'content-type': 'application/json' }, rawBody: raw },
        response: { status: 200, body: big },
      });
      const logged = await entry(webhooks.quickstart, id);
      assert.equal(logged.payload.truncated.limit, payloadLimit);
      assert.ok(logged.payload.truncated.bytes > payloadLimit);
      assert.equal(logged.payload.truncated.preview, raw.subarray(0, 2048).toString());
      assert.equal(logged.payload.data, undefined);
      assert.equal(logged.payload.body, undefined);
      assert.deepEqual(logged.payload.headers, { 'content-type': 'application/json' });
      assert.ok(logged.response.truncated.bytes > payloadLimit);
      assert.equal(logged.response.body, undefined);
      assert.equal(logged.hasPayload, true);
      assert.equal(logged.replayable, false);
      const row = await database().admin('webhook_log').where({ id }).first();
      assert.ok(String(row.payload).length < 4096, 'the stored payload is small');
      await app.post(`/api/console/webhooks/${webhooks.quickstart}/log/${id}/pin`);
      const replay = await app.post(`/api/console/webhooks/${webhooks.quickstart}/log/${id}/replay`);
      assert.equal(replay.status, 409, replay.text);
      assert.match(replay.json.detail, /too large/);
    });

    it('keeps a body that is not UTF-8 exactly (base64)', async () => {
      const raw = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
      const id = await record(app, webhooks.quickstart, { request: { method: 'POST', data: {}, query: {}, headers: {}, rawBody: raw } });
      const logged = await entry(webhooks.quickstart, id);
      assert.equal(logged.payload.bodyEncoding, 'base64');
      assert.deepEqual(Buffer.from(logged.payload.body, 'base64'), raw);
    });

    it('deletes unpinned entries past the retention on a later write and keeps pinned ones', async () => {
      const [first, pinned, third] = [
        await record(app, webhooks.shortLived),
        await record(app, webhooks.shortLived),
        await record(app, webhooks.shortLived),
      ];
      const pin = await app.post(`/api/console/webhooks/${webhooks.shortLived}/log/${pinned}/pin`);
      assert.equal(pin.status, 200, pin.text);
      assert.equal(pin.json.pinned, true);
      await sleep(1100);
      const fresh = await record(app, webhooks.shortLived);
      const list = await app.get(`/api/console/webhooks/${webhooks.shortLived}/log`);
      assert.deepEqual(list.json.entries.map((e: { id: string }) => e.id).sort(), [pinned, fresh].sort());
      assert.equal((await app.get(`/api/console/webhooks/${webhooks.shortLived}/log/${first}`)).status, 404);
      assert.equal((await app.get(`/api/console/webhooks/${webhooks.shortLived}/log/${third}`)).status, 404);
      // Unpinned, the entry is pruned like any other.
      await app.call('DELETE', `/api/console/webhooks/${webhooks.shortLived}/log/${pinned}/pin`);
      await sleep(1100);
      const last = await record(app, webhooks.shortLived);
      assert.deepEqual(
        (await app.get(`/api/console/webhooks/${webhooks.shortLived}/log`)).json.entries.map((e: { id: string }) => e.id),
        [last],
      );
      // Other webhooks' entries are untouched by this webhook's retention.
      assert.ok((await app.get(`/api/console/webhooks/${webhooks.quickstart}/log`)).json.entries.length >= 2);
    });

    it('lists newest first in pages, filters pins, and refuses bad paging', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push(await record(app, webhooks.paged, { at: new Date(Date.UTC(2030, 0, 1, 0, 0, i)) }));
      // Two entries at the same time still page apart (ties broken by id).
      ids.push(await record(app, webhooks.paged, { at: new Date(Date.UTC(2030, 0, 1, 0, 0, 4)) }));
      const seen: string[] = [];
      let path = `/api/console/webhooks/${webhooks.paged}/log?limit=2`;
      for (let page = 0; page < 5; page += 1) {
        const answer = await app.get(path);
        assert.equal(answer.status, 200, answer.text);
        seen.push(...answer.json.entries.map((e: { id: string }) => e.id));
        if (answer.json.next === null) break;
        path = `/api/console/webhooks/${webhooks.paged}/log?limit=2&cursor=${answer.json.next}`;
      }
      assert.equal(seen.length, 6);
      assert.deepEqual(new Set(seen), new Set(ids));
      assert.deepEqual(seen.slice(2), [ids[3], ids[2], ids[1], ids[0]]);
      assert.deepEqual(new Set(seen.slice(0, 2)), new Set([ids[4], ids[5]]));

      await app.post(`/api/console/webhooks/${webhooks.paged}/log/${ids[1]}/pin`);
      const pins = await app.get(`/api/console/webhooks/${webhooks.paged}/log?pinned=true`);
      assert.deepEqual(
        pins.json.entries.map((e: { id: string }) => e.id),
        [ids[1]],
      );
      const summary = pins.json.entries[0];
      assert.deepEqual(Object.keys(summary).sort(), [
        'at',
        'durationMs',
        'hasPayload',
        'id',
        'method',
        'origin',
        'pinned',
        'queueItemId',
        'replayOf',
        'replayable',
        'requestId',
        'status',
        'webhookId',
      ]);

      for (const query of ['limit=0', 'limit=201', 'limit=x', 'cursor=nonsense', 'pinned=yes', 'limit=1&limit=2']) {
        const answer = await app.get(`/api/console/webhooks/${webhooks.paged}/log?${query}`);
        assert.equal(answer.status, 400, `${query}: ${answer.text}`);
        assert.equal(answer.type, 'application/problem+json');
      }
    });

    it('filters by status, origin and time, alone and together, and pages a filtered log', async () => {
      const hook = webhooks.paged;
      const t = (seconds: number) => new Date(Date.UTC(2031, 0, 1, 0, 0, seconds));
      const as = (origin: 'test' | 'replay', replayOf?: string) => {
        const id = randomUUID();
        noteCallOrigin(id, { origin, ...(replayOf === undefined ? {} : { replayOf }) });
        return id;
      };
      const ok = await record(app, hook, { at: t(1), status: 200 });
      const notFound = await record(app, hook, { at: t(2), status: 404 });
      const refused = await record(app, hook, { at: t(3), status: 400 });
      // record() answers the id it made; an entry with an origin note keeps the id given it.
      const tested = as('test');
      await record(app, hook, { id: tested, at: t(4), status: 500 });
      const replayed = as('replay', ok);
      await record(app, hook, { id: replayed, at: t(5), status: 201 });
      const list = async (query: string) => {
        const answer = await app.get(`/api/console/webhooks/${hook}/log?${query}`);
        assert.equal(answer.status, 200, `${query}: ${answer.text}`);
        return answer.json as { entries: Array<{ id: string; origin: string | null }>; next: string | null };
      };
      const ids = async (query: string) => (await list(query)).entries.map((entry) => entry.id);
      const range = `from=${t(0).toISOString()}&to=${t(10).toISOString()}`;

      assert.deepEqual(await ids(range), [replayed, tested, refused, notFound, ok]);
      assert.deepEqual(await ids(`${range}&status=4xx`), [refused, notFound]);
      assert.deepEqual(await ids(`${range}&status=2XX,500`), [replayed, tested, ok], 'a class in any case, and a code');
      assert.deepEqual(await ids(`${range}&status=404&status=5xx`), [tested, notFound]);
      // Repeated and overlapping statuses are one condition each range: a thousand of them answered 500 on SQLite.
      assert.deepEqual(await ids(`${range}&status=${Array(1500).fill('4xx').join(',')},404,499`), [refused, notFound]);
      const everyOtherCode = Array.from({ length: 250 }, (_, index) => 100 + 2 * index).join(',');
      assert.deepEqual(await ids(`${range}&status=${everyOtherCode}`), [tested, refused, notFound, ok], 'every even code: not 201');
      assert.deepEqual(await ids(`${range}&origin=call`), [refused, notFound, ok]);
      assert.deepEqual(await ids(`${range}&origin=test,replay`), [replayed, tested]);
      assert.deepEqual(await ids(`${range}&origin=call&status=4xx`), [refused, notFound]);
      assert.deepEqual(await ids(`${range}&origin=replay`), [replayed]);
      assert.equal((await list(`${range}&origin=replay`)).entries[0]!.origin, 'replay');
      // from inclusive, to exclusive.
      assert.deepEqual(await ids(`from=${t(2).toISOString()}&to=${t(4).toISOString()}`), [refused, notFound]);
      assert.deepEqual(await ids(`from=2031-01-01T00:00:04%2B00:00&to=2031-01-02`), [replayed, tested], 'an offset, and a date');
      await app.post(`/api/console/webhooks/${hook}/log/${notFound}/pin`);
      assert.deepEqual(await ids(`${range}&status=4xx&pinned=true`), [notFound]);

      // Pages of a filtered log hold only matching entries, and end with them.
      const first = await list(`${range}&status=4xx,5xx&limit=2`);
      assert.deepEqual(
        first.entries.map((entry) => entry.id),
        [tested, refused],
      );
      assert.ok(first.next);
      const second = await list(`${range}&status=4xx,5xx&limit=2&cursor=${first.next}`);
      assert.deepEqual(
        second.entries.map((entry) => entry.id),
        [notFound],
      );
      assert.equal(second.next, null);

      const refusals: Array<[string, string, RegExp]> = [
        ['status=6xx', 'query.status', /classes \(2xx, 4xx\) or codes/],
        ['status=20', 'query.status', /neither/],
        ["status=2xx' OR 1=1", 'query.status', /neither/],
        ['origin=cron', 'query.origin', /call, test, replay/],
        ['from=yesterday', 'query.from', /ISO 8601/],
        ['from=2031-01-01T00:00:00', 'query.from', /with a zone/],
        ['from=2031-01-02&to=2031-01-01', 'query.to', /after from/],
        ['to=2031-02-30', 'query.to', /no such time/],
        ['from=2031-01-01&from=2031-01-02', 'query.from', /once/],
        ['stauts=5xx', 'query.stauts', /takes limit, cursor, pinned, status, origin, from, to/],
      ];
      for (const [query, path, message] of refusals) {
        const answer = await app.get(`/api/console/webhooks/${hook}/log?${query}`);
        assert.equal(answer.status, 400, `${query}: ${answer.text}`);
        assert.deepEqual(
          answer.json.errors.map((error: { path: string }) => error.path),
          [path],
          query,
        );
        assert.match(answer.json.errors[0].message, message, query);
      }
    });
  });
});
