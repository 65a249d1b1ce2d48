/**
 * X-Request-Id on each runtime database (the quickstart through engineApp): taken as sent when
 * acceptable, made up when absent, replaced when malformed; answered back; a field of every log
 * line of the request (the app's log is captured as JSON); a member of every problem body, the
 * webhook endpoint's included; and kept with what the request starts — the queue item, whose run
 * logs it even in a daemon, and the webhook call's log entry.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from '../../../../runtime/daemon/daemon.js';
import { getItem } from '../../../../runtime/queue/get-item.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type HttpApp, type LogLine } from '../../../support/http-app.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const syncId = 'crm-customers-to-erp';
const webhookId = 'wh_crmCustomerChanged01';
const secret = { service_webhooksecret: 'quickstart-webhook-secret' };

await describeEachDatabase('request ids', (database) => {
  describe('on the quickstart', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database());
    });
    after(() => app?.close());

    /** The log lines written while `call` ran. */
    const linesOf = async <T>(call: () => Promise<T>): Promise<{ result: T; lines: LogLine[] }> => {
      const from = app.logs.length;
      const result = await call();
      // A streamed answer's request line comes once it is sent.
      await sleep(20);
      return { result, lines: app.logs.slice(from) };
    };

    it('takes an acceptable id as sent and answers it back; its request line carries it', async () => {
      const sent = 'trace=4bf92f3577b34da6 span=00f067aa0ba902b7';
      const { result, lines } = await linesOf(() => app.call('GET', '/healthz', { headers: { 'x-request-id': sent } }));
      assert.equal(result.headers.get('x-request-id'), sent);
      const request = lines.find((line) => line.msg === 'request');
      assert.equal(request?.requestId, sent);
      assert.equal(request?.requestIdReplaced, undefined);
    });

    it('makes up a random id when none is sent', async () => {
      const first = await app.get('/healthz', null);
      const second = await app.get('/healthz', null);
      assert.match(first.headers.get('x-request-id') ?? '', uuid);
      assert.notEqual(first.headers.get('x-request-id'), second.headers.get('x-request-id'));
    });

    it('replaces a malformed id and says so in the request line, without logging it', async () => {
      for (const malformed of ['x'.repeat(129), 'caf\u00e9-not-ascii']) {
        const { result, lines } = await linesOf(() => app.call('GET', '/healthz', { headers: { 'x-request-id': malformed } }));
        const answered = result.headers.get('x-request-id') ?? '';
        assert.match(answered, uuid, 'a new id instead');
        const request = lines.find((line) => line.msg === 'request');
        assert.equal(request?.requestId, answered);
        assert.equal(request?.requestIdReplaced, true);
        assert.ok(!JSON.stringify(lines).includes(malformed.slice(0, 20)), 'the refused value is not logged');
      }
    });

    it('puts the id in every problem body, the webhook endpoint included', async () => {
      const unknown = await app.call('GET', '/no/such/route', { headers: { 'x-request-id': 'problem-1' } });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.type, 'application/problem+json');
      assert.equal(unknown.json.requestId, 'problem-1');
      assert.equal(unknown.json.instance, '/no/such/route', 'instance stays the request path');

      const unauthenticated = await app.call('POST', '/api/AddAction', { token: null, body: {} });
      assert.equal(unauthenticated.status, 401);
      assert.equal(unauthenticated.json.requestId, unauthenticated.headers.get('x-request-id'));

      const refused = await app.call('POST', `/api/webhooks/${webhookId}`, {
        token: null,
        headers: { service_webhooksecret: 'wrong', 'x-request-id': 'problem-2' },
        body: { id: 1, event: 'customer.updated' },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get('x-request-id'), 'problem-2');
      assert.equal(refused.json.requestId, 'problem-2');
    });

    it("is a field of every log line of a direct run's request", async () => {
      const { result, lines } = await linesOf(() =>
        app.call('POST', `/api/ExecuteProcess/${syncId}`, { body: { StartType: 'manual' }, headers: { 'x-request-id': 'direct-run-7' } }),
      );
      assert.equal(result.json.Status, 'Complete', result.text);
      const messages = lines.map((line) => line.msg);
      for (const expected of ['item started', 'item finished', 'request'])
        assert.ok(messages.includes(expected), `${expected} in ${messages}`);
      for (const line of lines) assert.equal(line.requestId, 'direct-run-7', `${line.msg} carries the request id`);
      assert.equal((await getItem(app.db, result.json.ID))?.requestId, 'direct-run-7');
      assert.equal(result.json.RequestId, undefined, 'the queue item JSON is the seed’s, without it');
    });

    it('goes with a queued item to the daemon that runs it', async () => {
      const added = await app.call('POST', '/api/AddAction', {
        body: { ProcessId: syncId, StartType: 'manual' },
        headers: { 'x-request-id': 'queued-8' },
      });
      assert.equal(added.status, 200, added.text);
      assert.equal((await getItem(app.db, added.json.ID))?.requestId, 'queued-8');
      const from = app.logs.length;
      const daemon = await startDaemon({ runner: app.runner, pollIntervalMs: 50 });
      try {
        const deadline = Date.now() + 20_000;
        while ((await getItem(app.db, added.json.ID))?.status !== 'Complete') {
          assert.ok(Date.now() < deadline, 'the daemon runs the item');
          await sleep(50);
        }
      } finally {
        await daemon.stop();
      }
      const run = app.logs.slice(from).filter((line) => line.itemId === added.json.ID);
      assert.deepEqual(
        run.map((line) => [line.msg, line.requestId]),
        [
          ['item started', 'queued-8'],
          ['item finished', 'queued-8'],
        ],
      );
    });

    it('is kept in the webhook call log and on the item the call started', async () => {
      const called = await app.call('POST', `/api/webhooks/${webhookId}`, {
        token: null,
        headers: { ...secret, 'x-request-id': 'hook-call-9' },
        body: { id: 3, event: 'customer.updated' },
      });
      assert.equal(called.status, 200, called.text);
      assert.equal((await getItem(app.db, called.json.ID))?.requestId, 'hook-call-9');
      const log = await app.get(`/api/console/webhooks/${webhookId}/log?limit=1`);
      assert.equal(log.status, 200, log.text);
      assert.equal(log.json.entries[0].requestId, 'hook-call-9');
      assert.equal(log.json.entries[0].queueItemId, called.json.ID);
      const entry = await app.get(`/api/console/webhooks/${webhookId}/log/${log.json.entries[0].id}`);
      assert.equal(entry.json.requestId, 'hook-call-9');
    });
  });
});
