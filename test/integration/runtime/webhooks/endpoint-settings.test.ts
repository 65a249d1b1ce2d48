/**
 * Settings beyond the seed, over HTTP: idempotency (a repeat within the window gets the first
 * answer and runs nothing, in the runtime database; a duplicate of a running call gets 409; a
 * failed call frees its key), the per-process rate limit (429 with Retry-After) and CORS.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { flushCallLog } from '../../../../runtime/webhooks/log/call-log-writer.js';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';
import { assertProblem, closeGate, fakeAction, gate, seen, webhookFiles } from './endpoint-fixture.js';

describe('webhook endpoint: idempotency, rate limit and CORS', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp({ files: webhookFiles, webhookAction: fakeAction });
  });
  after(() => app.close());

  const post = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    app.call('POST', `/api/webhooks/${id}`, { token: null, body, headers });

  it('answers a repeat with the same key within the window as before, running nothing; after the window it runs again', async () => {
    const count = seen.length;
    const first = await post('wh_idempotent0001', { order: 1 }, { 'idempotency-key': 'key-1' });
    assert.equal(first.status, 200);
    const repeat = await post('wh_idempotent0001', { order: 'changed' }, { 'idempotency-key': 'key-1' });
    assert.equal(repeat.status, 200);
    assert.deepEqual(repeat.json, first.json);
    assert.equal(repeat.headers.get('idempotent-replayed'), 'true');
    assert.equal(seen.length, count + 1);
    // Another key, and no key, run.
    assert.equal((await post('wh_idempotent0001', { order: 2 }, { 'idempotency-key': 'key-2' })).status, 200);
    assert.equal((await post('wh_idempotent0001', { order: 3 })).status, 200);
    assert.equal(seen.length, count + 3);
    const rows = await app.db.knex('webhook_idempotency').where({ webhook_id: 'wh_idempotent0001' }).select('key_hash', 'state');
    assert.equal(rows.length, 2);
    assert.ok(rows.every((row) => row.state === 'done' && !String(row.key_hash).includes('key-')));
    await sleep(1100);
    const late = await post('wh_idempotent0001', { order: 4 }, { 'idempotency-key': 'key-1' });
    assert.equal(late.status, 200);
    assert.equal(late.headers.get('idempotent-replayed'), null);
    assert.equal(seen.length, count + 4);
  });

  it('a call running longer than a short window still holds its key: the retry gets 409, not a second run', async () => {
    closeGate();
    const first = post('wh_idempotent0001', { order: 'slow', wait: true }, { 'idempotency-key': 'key-slow' });
    while (!seen.some((call) => (call.request.data as { order?: string }).order === 'slow')) await sleep(5);
    const count = seen.length;
    await sleep(1200); // longer than the 1 s window
    assertProblem(
      await post('wh_idempotent0001', { order: 'slow', wait: true }, { 'idempotency-key': 'key-slow' }),
      409,
      'idempotency-conflict',
    );
    assert.equal(seen.length, count, 'the action did not run a second time');
    gate.open();
    assert.equal((await first).status, 200);
  });

  it('takes the key from a body path when configured', async () => {
    const count = seen.length;
    const body = { event: { id: 'evt_1', type: 'paid' } };
    assert.equal((await post('wh_idemBody000001', body)).status, 200);
    assert.equal((await post('wh_idemBody000001', body)).headers.get('idempotent-replayed'), 'true');
    assert.equal(seen.length, count + 1);
  });

  it('answers 409 to a duplicate while the first call still runs, then the first answer', async () => {
    closeGate();
    const first = post('wh_idemBody000001', { event: { id: 'evt_slow' }, wait: true });
    while (!seen.some((call) => (call.request.data as { event?: { id?: string } }).event?.id === 'evt_slow')) await sleep(5);
    assertProblem(await post('wh_idemBody000001', { event: { id: 'evt_slow' }, wait: true }), 409, 'idempotency-conflict');
    gate.open();
    const answer = await first;
    assert.equal(answer.status, 200);
    const repeat = await post('wh_idemBody000001', { event: { id: 'evt_slow' }, wait: true });
    assert.deepEqual(repeat.json, answer.json);
  });

  it('frees the key of a failed call, so a retry runs', async () => {
    const count = seen.length;
    assert.equal((await post('wh_idemBody000001', { event: { id: 'evt_fail' }, fail: 'crash' })).status, 500);
    assert.equal((await post('wh_idemBody000001', { event: { id: 'evt_fail' } })).status, 200);
    assert.equal(seen.length, count + 2);
  });

  it('answers 429 with Retry-After past the rate limit, without running the action or logging the refusal', async () => {
    const count = seen.length;
    assert.equal((await post('wh_ratelimit00001', {})).status, 200);
    assert.equal((await post('wh_ratelimit00001', {})).status, 200);
    const refused = await post('wh_ratelimit00001', {});
    assertProblem(refused, 429, 'rate-limited', /2 calls per 1m/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 30, String(retryAfter));
    assert.equal(seen.length, count + 2);
    // The endpoint writes its log behind the answers; reading the table directly needs a flush.
    await flushCallLog(app.db);
    const logged = await app.db.knex('webhook_log').where({ webhook_id: 'wh_ratelimit00001' }).count({ n: '*' }).first();
    assert.equal(Number(logged?.n), 2);
  });

  it('answers a CORS preflight for an allowed origin and sends Access-Control-Allow-Origin to it only', async () => {
    const allowed = 'https://shop.example.com';
    const preflight = await app.call('OPTIONS', '/api/webhooks/wh_cors0000000001', {
      token: null,
      headers: {
        origin: allowed,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, idempotency-key',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), allowed);
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type, idempotency-key');
    assert.equal((await post('wh_cors0000000001', {}, { origin: allowed })).headers.get('access-control-allow-origin'), allowed);

    const other = 'https://evil.example.com';
    const refused = await app.call('OPTIONS', '/api/webhooks/wh_cors0000000001', {
      token: null,
      headers: { origin: other, 'access-control-request-method': 'POST' },
    });
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    assert.equal((await post('wh_cors0000000001', {}, { origin: other })).headers.get('access-control-allow-origin'), null);
    // A webhook without cors settings allows no origin.
    assert.equal((await post('wh_plainOpen000001', {}, { origin: allowed })).headers.get('access-control-allow-origin'), null);
  });
});
