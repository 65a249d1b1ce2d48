/**
 * The webhook endpoint over HTTP, around a fake action: how the request is read (query string,
 * JSON, form fields, multipart), each refusal of the seed's errors table and beyond (404, 410, 400,
 * 413, 415, 405), the execution condition, the redirect, problems of the action, the call log,
 * and the boundary with bearer authentication.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { flushCallLog } from '../../../../runtime/webhooks/log/call-log-writer.js';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';
import { assertProblem, fakeAction, seen, webhookFiles } from './endpoint-fixture.js';

const bodyLimit = 4096;

describe('webhook endpoint: reading, statuses and the auth boundary', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp({ files: webhookFiles, webhookAction: fakeAction, bodyLimit });
  });
  after(() => app.close());

  const post = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    app.call('POST', `/api/webhooks/${id}`, { token: null, body, headers });
  const last = () => seen.at(-1)!;

  it('takes the query string as data on GET, a repeated name as an array', async () => {
    const answer = await app.call('GET', '/api/webhooks/wh_plainOpen000001?id=42&tag=a&tag=b&name=J%C3%BCrgen', { token: null });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.received, { id: '42', tag: ['a', 'b'], name: 'Jürgen' });
    assert.equal(last().request.method, 'GET');
    assert.equal(last().request.rawBody.length, 0);
  });

  it('takes a JSON body on POST and keeps the raw body and the query apart', async () => {
    const raw = '{"id": 7, "nested": {"ok": true}}';
    const answer = await app.call('POST', '/api/webhooks/wh_plainOpen000001?source=crm', {
      token: null,
      raw,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.received, { id: 7, nested: { ok: true } });
    assert.equal(last().request.rawBody.toString('utf8'), raw);
    assert.deepEqual({ ...last().request.query }, { source: 'crm' });
  });

  it('turns form fields into an object, a repeated field into an array, __proto__ into a plain property', async () => {
    const raw = 'name=Ann+Lee&email=ann%40example.com&tag=x&tag=y&tag=z&__proto__=p';
    const answer = await app.call('POST', '/api/webhooks/wh_plainOpen000001', {
      token: null,
      raw,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(answer.status, 200, answer.text);
    const data = last().request.data as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.deepEqual(answer.json.received, { name: 'Ann Lee', email: 'ann@example.com', tag: ['x', 'y', 'z'], ['__proto__']: 'p' });
  });

  it('refuses an escape or a byte that is no UTF-8 in a query string or form body, instead of passing U+FFFD on', async () => {
    const query = await app.call('GET', '/api/webhooks/wh_plainOpen000001?id=2&event=%E0%A4', { token: null });
    assertProblem(query, 400, 'invalid-request', /The query string holds '%E0%A4', which is not percent-encoded UTF-8/);
    const form = (raw: string | Uint8Array<ArrayBuffer>) =>
      app.call('POST', '/api/webhooks/wh_plainOpen000001', {
        token: null,
        raw,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    assertProblem(await form('id=2&event=%FF'), 400, 'invalid-request', /The form body holds '%FF'/);
    assertProblem(await form(new Uint8Array([0x61, 0x3d, 0xff])), 400, 'invalid-request', /The form body is not UTF-8 at byte 2/);
    // More fields than a webhook reads are refused before they are read.
    const many = Array(1001).fill('a=1').join('&');
    assertProblem(await form(many), 400, 'invalid-request', /The form body has more than 1000 fields/);
    const longQuery = await app.call('GET', `/api/webhooks/wh_plainOpen000001?${many}`, { token: null });
    assertProblem(longQuery, 400, 'invalid-request', /The query string has more than 1000 fields/);
    const enough = await form(Array(1000).fill('a=1').join('&'));
    assert.equal(enough.status, 200, enough.text);
    // A % that starts no escape is the character itself, as form readers take it.
    const percent = await form('rate=100%&name=J%C3%BCrgen');
    assert.equal(percent.status, 200, percent.text);
    assert.deepEqual(percent.json.received, { rate: '100%', name: 'Jürgen' });
  });

  it('reads multipart/form-data fields and refuses a file part with 415', async () => {
    const form = new FormData();
    form.append('name', 'Ann');
    form.append('tag', 'a');
    form.append('tag', 'b');
    let response = await fetch(`${app.base}/api/webhooks/wh_plainOpen000001`, { method: 'POST', body: form });
    assert.equal(response.status, 200);
    assert.deepEqual(((await response.json()) as { received: unknown }).received, { name: 'Ann', tag: ['a', 'b'] });
    form.append('upload', new Blob(['hello']), 'hello.txt');
    response = await fetch(`${app.base}/api/webhooks/wh_plainOpen000001`, { method: 'POST', body: form });
    assert.equal(response.status, 415);
    assert.match(((await response.json()) as { detail: string }).detail, /upload is a file/);

    // Field bytes that are no UTF-8 are refused, not passed on as U+FFFD; so is another charset.
    const multipart = (bytes: number[], type = 'multipart/form-data; boundary=XX') =>
      app.call('POST', '/api/webhooks/wh_plainOpen000001', {
        token: null,
        raw: new Uint8Array([
          ...Buffer.from('--XX\r\nContent-Disposition: form-data; name="event"\r\n\r\n'),
          ...bytes,
          ...Buffer.from('\r\n--XX--\r\n'),
        ]),
        headers: { 'content-type': type },
      });
    assertProblem(await multipart([0x63, 0x61, 0x66, 0xe9]), 400, 'invalid-request', /multipart\/form-data body is not UTF-8 at byte 57/);
    assertProblem(await multipart([0x63], 'multipart/form-data; boundary=XX; charset=latin1'), 415, 'unsupported-media-type');
    const utf8 = await multipart([...Buffer.from('café')]);
    assert.equal(utf8.status, 200, utf8.text);
    assert.deepEqual(utf8.json.received, { event: 'café' });
  });

  it('answers 415 for another content type, naming the accepted ones', async () => {
    const answer = await app.call('POST', '/api/webhooks/wh_plainOpen000001', {
      token: null,
      raw: '<a/>',
      headers: { 'content-type': 'application/xml' },
    });
    assertProblem(answer, 415, 'unsupported-media-type', /application\/json, application\/x-www-form-urlencoded or multipart\/form-data/);
  });

  it('answers 400 for broken JSON without echoing it', async () => {
    const answer = await app.call('POST', '/api/webhooks/wh_plainOpen000001', {
      token: null,
      raw: '{"id": 1, "secret-ish": ',
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(answer, 400, 'malformed-json', /not valid JSON/);
    assert.doesNotMatch(answer.text, /secret-ish/);
  });

  it('answers 413 for a body over the limit', async () => {
    const answer = await post('wh_plainOpen000001', { filler: 'x'.repeat(bodyLimit) });
    assertProblem(answer, 413, 'body-too-large');
  });

  it('answers 404 for an unknown id, in the shape of every other problem, and does not log it', async () => {
    // The endpoint writes its log behind the answers; reading the table directly needs a flush.
    await flushCallLog(app.db);
    const before = await app.db.knex('webhook_log').count({ n: '*' }).first();
    for (const id of ['wh_plainOpen000002', 'WH_PLAINOPEN000001', 'x']) {
      assertProblem(await post(id, {}), 404, 'unknown-webhook');
      assertProblem(await app.call('GET', `/api/webhooks/${id}`, { token: null }), 404, 'unknown-webhook');
      // A preflight too: a known id answers 204, so a 200 here would tell the id does not exist.
      assertProblem(await app.call('OPTIONS', `/api/webhooks/${id}`, { token: null }), 404, 'unknown-webhook');
    }
    // An unknown id with a broken body is still a 404: the id is judged first.
    assertProblem(
      await app.call('POST', '/api/webhooks/wh_nothing00000000', {
        token: null,
        raw: '{',
        headers: { 'content-type': 'application/json' },
      }),
      404,
      'unknown-webhook',
    );
    await flushCallLog(app.db);
    const afterwards = await app.db.knex('webhook_log').count({ n: '*' }).first();
    assert.deepEqual(afterwards, before);
  });

  it('answers 410 for an inactive webhook without running the action', async () => {
    const count = seen.length;
    assertProblem(await post('wh_inactive0000001', { id: 1 }), 410, 'gone', /inactive/);
    assert.equal(seen.length, count);
  });

  it('answers 400 with the schema errors and their paths', async () => {
    const answer = await post('wh_schema000000001', { id: 'seven', address: { zip: 'abc' } });
    assertProblem(answer, 400, 'invalid-request');
    const errors = answer.json.errors as Array<{ path: string; message: string }>;
    assert.deepEqual(errors.map((e) => e.path).sort(), ['/address/zip', '/event', '/id']);
    assert.ok(errors.every((e) => typeof e.message === 'string' && e.message.length > 0));
    assert.equal((await post('wh_schema000000001', { id: 7, event: 'created' })).status, 200);
  });

  it('a whole number past 2^53 arrives as its digits: an integer property says why it is text and what to declare', async () => {
    const answer = await app.call('POST', '/api/webhooks/wh_schema000000001', {
      token: null,
      raw: '{"id": 9007199254740993, "event": "created"}',
      headers: { 'content-type': 'application/json' },
    });
    assertProblem(answer, 400, 'invalid-request');
    assert.deepEqual(answer.json.errors, [
      {
        path: '/id',
        message:
          'must be integer: it was sent as a whole number past 2^53, which a JSON number cannot hold exactly, so it arrives as the text of its digits; declare it {"type": "string"} (or ["integer", "string"])',
      },
    ]);
    const open = await app.call('POST', '/api/webhooks/wh_plainOpen000001', {
      token: null,
      raw: '{"id": 9007199254740993}',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual(open.json.received, { id: '9007199254740993' });
    // So does a number past a double's range, which JSON.parse would make Infinity or 0.
    const outside = await app.call('POST', '/api/webhooks/wh_plainOpen000001', {
      token: null,
      raw: '{"id": 1, "big": 1e400, "tiny": [-1E-400, 0.5]}',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual(outside.json.received, { id: 1, big: '1e400', tiny: ['-1E-400', 0.5] });
  });

  it('converts query and form text to the numbers the schema declares before validating', async () => {
    const answer = await app.call('GET', '/api/webhooks/wh_schema000000001?id=7&event=created', { token: null });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.received, { id: 7, event: 'created' });
    const form = await app.call('POST', '/api/webhooks/wh_schema000000001', {
      token: null,
      raw: 'id=8&event=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.deepEqual(form.json.received, { id: 8, event: 'x' });
    const wrong = await app.call('GET', '/api/webhooks/wh_schema000000001?id=7.5&event=created', { token: null });
    assertProblem(wrong, 400, 'invalid-request');
    assert.deepEqual(
      wrong.json.errors.map((e: { path: string }) => e.path),
      ['/id'],
    );
    // JSON keeps the sender's types: a string id stays a string and is refused.
    assertProblem(await post('wh_schema000000001', { id: '7', event: 'created' }), 400, 'invalid-request');
  });

  it('answers 204 and does not run the action when the condition is false; the ticker says why', async () => {
    const count = seen.length;
    assert.equal((await post('wh_condition00001', { event: 'customer.deleted', total: 3 })).status, 204);
    assert.equal((await post('wh_condition00001', { event: 'customer.updated', total: 0 })).status, 204);
    assert.equal(seen.length, count);
    await flushCallLog(app.db);
    const rows = await app.db.knex('webhook_log').where({ webhook_id: 'wh_condition00001' }).select('status', 'ticker');
    assert.equal(rows.length, 2);
    assert.ok(rows.every((row) => row.status === 204 && /execution condition is false/.test(String(row.ticker))));
    assert.equal((await post('wh_condition00001', { event: 'customer.updated', total: 5 })).status, 200);
    assert.equal(seen.length, count + 1);
  });

  it('answers 204 when the action has no result, 200 with JSON when it has one', async () => {
    const empty = await post('wh_plainOpen000001', { empty: true });
    assert.equal(empty.status, 204);
    assert.equal(empty.text, '');
    const full = await post('wh_plainOpen000001', { a: 1 });
    assert.equal(full.status, 200);
    assert.equal(full.type, 'application/json');
  });

  it('redirects with 303 See Other after the action ran', async () => {
    const count = seen.length;
    const response = await fetch(`${app.base}/api/webhooks/wh_redirect000001`, {
      method: 'POST',
      body: 'name=Ann',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    assert.equal(response.status, 303);
    assert.equal(response.headers.get('location'), 'https://shop.example.com/thanks');
    assert.equal(seen.length, count + 1);
  });

  it('answers a problem of the action as problem+json, anything else as a 500 without details', async () => {
    assertProblem(await post('wh_plainOpen000001', { fail: 'problem' }), 409, 'rejected', /duplicate email/);
    const crash = await post('wh_plainOpen000001', { fail: 'crash' });
    assertProblem(crash, 500, 'internal');
    assert.doesNotMatch(crash.text, /hunter2|postgres/);
    assert.ok(app.logs.some((line) => line.msg === 'webhook call failed' && line.webhookId === 'wh_plainOpen000001'));
  });

  it('records every call in the call log with its ticker and queue item', async () => {
    await post('wh_plainOpen000001', { logged: true });
    await flushCallLog(app.db);
    const row = await app.db.knex('webhook_log').where({ webhook_id: 'wh_plainOpen000001' }).orderBy('at', 'desc').first();
    assert.equal(row.status, 200);
    assert.equal(row.method, 'POST');
    assert.equal(row.queue_item_id, '00000000-0000-4000-8000-000000000001');
    const ticker = JSON.parse(String(row.ticker)) as Array<{ kind: string }>;
    assert.deepEqual(
      ticker.map((m) => m.kind),
      ['start', 'queued', 'done'],
    );
  });

  it('needs no bearer token on the webhook path, in any spelling; every other /api path still does', async () => {
    assert.equal((await app.call('POST', '/API/WEBHOOKS/wh_plainOpen000001', { token: null, body: {} })).status, 200);
    assert.equal((await app.call('POST', '/api/Webhooks/wh_plainOpen000001/', { token: null, body: {} })).status, 200);
    for (const path of [
      '/API/RunConnectionGetDataMin/crm/Customer',
      '/api/webhooks/wh_plainOpen000001/extra',
      '/api/webhooks/..%2FRunConnectionGetDataMin%2Fcrm%2FCustomer',
    ]) {
      const answer = await app.call('POST', path, { token: null, body: [] });
      // Not a webhook: 401 where a route exists, else 404 (the /api router checks tokens on its routes).
      assert.ok(answer.status === 401 || answer.status === 404, `${path}: ${answer.status}`);
      assert.notEqual(answer.json.type, 'urn:syncline:problem:method-not-allowed', path);
    }
    assertProblem(await app.call('POST', '/API/RunConnectionGetDataMin/crm/Customer', { token: null, body: [] }), 401, 'unauthenticated');
    // /api/webhooks itself is the console's list of webhooks, an API route like any other: a token
    // to read it, and the API's 405 (not the webhook endpoint's GET, POST) for another method.
    for (const path of ['/api/webhooks', '/api/webhooks/']) {
      assertProblem(await app.call('GET', path, { token: null }), 401, 'unauthenticated');
      const listPost = await app.call('POST', path, { token: null, body: [] });
      assertProblem(listPost, 405, 'method-not-allowed');
      assert.equal(listPost.headers.get('allow'), 'HEAD, GET', path);
    }
  });

  it('answers 405 naming the methods for other methods, without asking for a token', async () => {
    const answer = await app.call('PUT', '/api/webhooks/wh_plainOpen000001', { token: null, body: {} });
    assertProblem(answer, 405, 'method-not-allowed');
    assert.equal(answer.headers.get('allow'), 'GET, POST, OPTIONS');
  });

  it('logs requests by route pattern, never the id, body or secret', async () => {
    await post('wh_secret000000001', { marker: 'body-marker-1234' }, { service_webhooksecret: 'seed-secret-0123456789-abcdef' });
    const text = JSON.stringify(app.logs);
    assert.doesNotMatch(text, /body-marker-1234|seed-secret-0123456789/);
    assert.ok(app.logs.some((line) => line.msg === 'request' && line.route === '/api/webhooks/:webhookId'));
  });
});
