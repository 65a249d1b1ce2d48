/**
 * The web client against real HTTP servers on loopback ports: what arrives (paths, auth headers),
 * retries (429 and 503 with and without Retry-After, reset connections for reads only), the limits
 * (timeout, answer size, request rate), cancellation, and errors that never show what the server
 * said or a secret. OAuth2 tokens are tested in web-client-oauth2.test.ts. Timing is only ever
 * asserted as a lower bound.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { linkTarget, type WebClient } from '../../../../connectors/web/index.js';
import type { SystemLimitsDefinition } from '../../../../definitions/types.js';
import { clientOf, json, logged, RecordingServer, rejectsWith, sleep } from './web-test-support.js';

let api: RecordingServer;
let other: RecordingServer;
before(async () => {
  [api, other] = await Promise.all([RecordingServer.start(), RecordingServer.start()]);
});
after(async () => {
  await Promise.all([api.close(), other.close()]);
});

const client = (connection: Record<string, unknown> = {}, limits: SystemLimitsDefinition = {}): WebClient =>
  clientOf(api, connection, limits);

describe('where requests go', () => {
  test('paths resolve below baseUrl with the query appended; JSON goes out and comes back', async () => {
    api.answerWith((hit, res) => json(res, 201, { got: JSON.parse(hit.body) }));
    const response = await client().request({ method: 'POST', path: 'Customers', query: { $expand: 'orders' }, json: { name: 'Ada' } });
    assert.equal(response.status, 201);
    assert.ok(response.ok);
    assert.deepEqual(response.json(), { got: { name: 'Ada' } });
    const [hit] = api.hits;
    assert.equal(hit!.url, '/odata/v4/crm/Customers?$expand=orders');
    assert.equal(hit!.headers['content-type'], 'application/json');
    assert.equal(hit!.headers.accept, 'application/json');
    assert.equal(hit!.headers['user-agent'], 'syncline-test');
  });

  test('a 404 is an answer for the caller to judge; failure() makes the error', async () => {
    api.answerWith((_hit, res) => json(res, 404, { error: 'no such customer' }));
    const response = await client().request({ path: "Customers('X9')" });
    assert.equal(response.status, 404);
    assert.equal(response.ok, false);
    assert.equal(response.failure().code, 'unavailable');
    assert.equal(response.failure().message, "system 'erp' answered GET /odata/v4/crm/Customers('X9') with HTTP 404");
    await rejectsWith(client().getJson('Customers'), 'unavailable', /HTTP 404/);
  });

  test('a next link of the same origin is followed; one of another origin is refused and never requested', async () => {
    api.answerWith((hit, res) =>
      hit.url.includes('page=2')
        ? json(res, 200, { page: 2 })
        : json(res, 200, { page: 1 }, { link: `<${hit.url.replace('page=1', 'page=2')}>; rel="next"` }),
    );
    const web = client();
    const first = await web.request({ path: 'items', query: { page: 1 } });
    const next = linkTarget(first.headers.get('link'), 'next', first.url);
    assert.equal(next, `${api.origin}/odata/v4/crm/items?page=2`);
    assert.deepEqual(await web.getJson(next!), { page: 2 });

    other.answerWith((_hit, res) => json(res, 200, {}));
    const error = await rejectsWith(
      web.request({ path: `${other.origin}/odata/v4/crm/items?page=3&token=abc` }),
      'unavailable',
      /^system 'erp' pointed to a URL on another host, scheme or port than connection\.baseUrl/,
    );
    assert.doesNotMatch(error.message, /token=|page=3/);
    assert.equal(other.hits.length, 0, 'the other server got no request');
  });

  test('redirects are followed within the origin, and refused to another one', async () => {
    api.answerWith((hit, res) => {
      if (hit.url.endsWith('/old')) res.writeHead(301, { location: '/odata/v4/crm/new' }).end();
      else if (hit.url.endsWith('/away')) res.writeHead(302, { location: `${other.origin}/steal` }).end();
      else json(res, 200, { at: hit.url, auth: hit.headers['x-api-key'] });
    });
    const web = client({ auth: { type: 'apiKey', header: 'X-API-Key', value: 'key-123456' } });
    assert.deepEqual(await web.getJson('old'), { at: '/odata/v4/crm/new', auth: 'key-123456' });
    await rejectsWith(web.getJson('away'), 'unavailable', /^system 'erp' redirected \/odata\/v4\/crm\/away to another host/);
    assert.equal(other.hits.length, 0);
  });

  test('an answer that is not JSON is the system failing, in our words', async () => {
    api.answerWith((_hit, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>Oops SECRET-PAGE</html>'));
    const error = await rejectsWith(
      client().getJson('Customers'),
      'unavailable',
      /^system 'erp' answered GET \/odata\/v4\/crm\/Customers \(HTTP 200\) with something that is not JSON$/,
    );
    assert.match(logged(error), /SECRET-PAGE/, 'the log has the body');
  });
});

describe('signing in', () => {
  test('basic, bearer and apiKey headers arrive as configured, next to the static headers', async () => {
    api.answerWith((_hit, res) => json(res, 200, {}));
    const headers = { 'X-Tenant': 'acme' };
    await client({ headers, auth: { type: 'basic', username: 'sync', password: 'pä ss:word' } }).request({ path: 'a' });
    await client({ headers, auth: { type: 'bearer', token: 'tok-abcdef' } }).request({ path: 'b' });
    await client({ headers, auth: { type: 'apiKey', header: 'Ocp-Apim-Subscription-Key', value: 'key-123456' } }).request({ path: 'c' });
    await client({ headers, auth: { type: 'apiKey', value: 'key-default' } }).request({ path: 'd' });
    const [basic, bearer, apiKey, defaultHeader] = api.hits;
    assert.equal(basic!.headers.authorization, `Basic ${Buffer.from('sync:pä ss:word').toString('base64')}`);
    assert.equal(bearer!.headers.authorization, 'Bearer tok-abcdef');
    assert.equal(apiKey!.headers['ocp-apim-subscription-key'], 'key-123456');
    assert.equal(apiKey!.headers.authorization, undefined);
    assert.equal(defaultHeader!.headers['x-api-key'], 'key-default');
    assert.ok(api.hits.every((hit) => hit.headers['x-tenant'] === 'acme'));
    assert.ok(
      api.hits.every((hit) => !hit.url.includes('key')),
      'no key in any URL',
    );
  });

  test('401 with a fixed credential is an error at once, naming neither the secret nor what the server said', async () => {
    api.answerWith((hit, res) => json(res, 401, { error: `bad credentials ${hit.headers.authorization}` }));
    const error = await rejectsWith(
      client({ auth: { type: 'basic', username: 'sync', password: 'hunter2-password' } }).request({ path: 'Customers', query: { q: 'x' } }),
      'unavailable',
      /^system 'erp' refused our credentials \(HTTP 401 to GET \/odata\/v4\/crm\/Customers\); check connection\.auth/,
    );
    assert.equal(api.hits.length, 1);
    const basic = Buffer.from('sync:hunter2-password').toString('base64');
    assert.doesNotMatch(logged(error), new RegExp(`hunter2|${basic}`));
    assert.match(logged(error), /bad credentials Basic \[redacted\]/);
  });
});

describe('retries', () => {
  /** Answers `first` to the first `times` requests, then 200. */
  function failing(times: number, first: (res: import('node:http').ServerResponse) => void) {
    api.answerWith((_hit, res) => (api.hits.length <= times ? first(res) : json(res, 200, { ok: true })));
  }

  test('429 with Retry-After in seconds is retried after it', async () => {
    failing(1, (res) => json(res, 429, {}, { 'retry-after': '1' }));
    const started = performance.now();
    assert.deepEqual(await client().getJson('x'), { ok: true });
    assert.ok(performance.now() - started >= 990, 'waited the second asked for');
    assert.equal(api.hits.length, 2);
  });

  test('429 with Retry-After as an HTTP-date is retried, for a write too', async () => {
    failing(1, (res) => json(res, 429, {}, { 'retry-after': new Date(Date.now() + 1000).toUTCString() }));
    const response = await client().request({ method: 'POST', path: 'x', json: { a: 1 } });
    assert.equal(response.status, 200);
    assert.equal(api.hits.length, 2);
    assert.equal(api.hits[1]!.body, '{"a":1}');
  });

  test('503 without Retry-After is retried after a backoff', async () => {
    failing(2, (res) => json(res, 503, {}));
    const started = performance.now();
    assert.deepEqual(await client().getJson('x'), { ok: true });
    assert.ok(performance.now() - started >= 0.8 * (500 + 1000), 'two backoffs of at least 80% of 500ms and 1s');
    assert.equal(api.hits.length, 3);
  });

  test('a Retry-After beyond retries.maxWait fails at once, with retryAfterSeconds', async () => {
    failing(1, (res) => json(res, 429, {}, { 'retry-after': '120' }));
    const error = await rejectsWith(
      client({ retries: { max: 3, maxWait: '30s' } }).getJson('x'),
      'busy',
      /^system 'erp' refused GET \/odata\/v4\/crm\/x as too many requests \(HTTP 429\) and asks to wait 120 s, longer than connection\.retries\.maxWait \(30s\) allows/,
    );
    assert.equal(error.details?.retryAfterSeconds, 120);
    assert.equal(api.hits.length, 1);
  });

  test('a POST or PATCH answered 429 or 503 without Retry-After is sent once; PUT and DELETE are retried', async () => {
    for (const [method, status, code] of [
      ['POST', 503, 'unavailable'],
      ['PATCH', 429, 'busy'],
    ] as const) {
      failing(10, (res) => json(res, status, {}));
      const error = await rejectsWith(
        client({ retries: { max: 3, maxWait: '30s' } }).request({ method, path: 'orders', json: { total: 5 } }),
        code,
        new RegExp(`without Retry-After; a ${method} is sent again only when the system says when to`),
      );
      assert.equal(error.details?.status, status);
      assert.equal(api.hits.length, 1, `${method} was sent once`);
    }
    for (const method of ['PUT', 'DELETE'] as const) {
      failing(1, (res) => json(res, 503, {}));
      assert.equal((await client().request({ method, path: 'orders(1)', json: { total: 5 } })).status, 200);
      assert.equal(api.hits.length, 2, `${method} was retried`);
    }
  });

  test('a POST with Retry-After is retried until retries.maxWait is spent, a GET until retries.max', async () => {
    // The first answer asks for the whole budget; the next ones for no wait at all.
    failing(10, (res) => json(res, 503, {}, { 'retry-after': api.hits.length === 1 ? '1' : '0' }));
    await rejectsWith(
      client({ retries: { max: 4, maxWait: '1s' } }).request({ method: 'POST', path: 'orders', json: { total: 5 } }),
      'unavailable',
      /also after waiting connection\.retries\.maxWait \(1s\); a POST is not sent again past it/,
    );
    assert.equal(api.hits.length, 2);
    failing(10, (res) => json(res, 503, {}, { 'retry-after': api.hits.length === 1 ? '1' : '0' }));
    await rejectsWith(client({ retries: { max: 4, maxWait: '1s' } }).getJson('x'), 'unavailable', /also after 4 retries/);
    assert.equal(api.hits.length, 5);
  });

  test('503 after the last retry is unavailable', async () => {
    failing(10, (res) => json(res, 503, {}, { 'retry-after': '0' }));
    await rejectsWith(
      client({ retries: { max: 2, maxWait: '30s' } }).getJson('x'),
      'unavailable',
      /^system 'erp' answered GET \/odata\/v4\/crm\/x with HTTP 503 \(unavailable\), also after 2 retries/,
    );
    assert.equal(api.hits.length, 3);
  });

  test('other server errors are not retried', async () => {
    failing(10, (res) => json(res, 500, { trace: 'at Foo.bar' }));
    await rejectsWith(client().getJson('x'), 'unavailable', /^system 'erp' failed GET \/odata\/v4\/crm\/x \(HTTP 500\)$/);
    assert.equal(api.hits.length, 1);
  });

  test('a reset connection is retried for a GET, never for a POST', async () => {
    failing(1, (res) => res.socket?.destroy());
    assert.deepEqual(await client().getJson('x'), { ok: true });
    assert.equal(api.hits.length, 2);

    failing(1, (res) => res.socket?.destroy());
    await rejectsWith(
      client().request({ method: 'POST', path: 'orders', json: { total: 5 } }),
      'unavailable',
      /^system 'erp' cannot be reached: the connection was (closed before the answer came|reset) \(POST \/odata\/v4\/crm\/orders\)$/,
    );
    assert.equal(api.hits.length, 1, 'the write was sent once');
  });
});

describe('limits', () => {
  test('a request past limits.statementTimeout is a timeout naming the limit and the system', async () => {
    api.answerWith(() => {}); // never answers
    const error = await rejectsWith(
      client({}, { statementTimeout: '200ms' }).getJson('slow', { query: { secret: 'q' } }),
      'timeout',
      /^system 'erp': stopped GET \/odata\/v4\/crm\/slow at the statement timeout of 200ms; .*raise limits\.statementTimeout in the System definition 'erp'$/,
    );
    assert.deepEqual(error.details, { system: 'erp', limit: 'statementTimeout', value: '200ms' });
  });

  test('a body over maxResponseBytes is cut off as it streams in: too-large, and the rest is never sent', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const planned = 1024 * chunk.length;
    let written = 0;
    let closed = false;
    api.answerWith((_hit, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('close', () => {
        closed = true;
      });
      const pump = () => {
        while (!closed && written < planned) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const error = await rejectsWith(
      client({ maxResponseBytes: '64kib' }).getJson('huge'),
      'too-large',
      /^system 'erp' answered GET \/odata\/v4\/crm\/huge with more than 64 KiB, over connection\.maxResponseBytes of the System definition 'erp'/,
    );
    assert.deepEqual(error.details?.limit, 'maxResponseBytes');
    while (!closed) await sleep(10);
    assert.ok(written < planned / 16, `the server could send only ${written} of ${planned} bytes`);
  });

  test('a declared Content-Length over the cap fails before the body is read', async () => {
    api.answerWith((_hit, res) => res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) }).write('{'));
    await rejectsWith(client({ maxResponseBytes: 1000 }).getJson('x'), 'too-large', /more than 1 kB/);
  });

  test('rateLimit spaces the requests: 6 at 3 per 300ms take at least 300ms', async () => {
    api.answerWith((_hit, res) => json(res, 200, {}));
    const web = client({ rateLimit: { requests: 3, per: '300ms' } });
    const started = performance.now();
    await Promise.all(Array.from({ length: 6 }, (_, i) => web.request({ path: `r${i}` })));
    assert.ok(performance.now() - started >= 290, `took ${performance.now() - started} ms`);
    assert.equal(api.hits.length, 6);
  });
});

describe('cancellation', () => {
  test('an abort stops a request in flight with the caller’s reason', async () => {
    api.answerWith(() => {});
    const controller = new AbortController();
    const reason = new Error('the sync was stopped');
    const pending = client().request({ path: 'slow', signal: controller.signal });
    await sleep(50);
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
    await assert.rejects(client().request({ path: 'x', signal: AbortSignal.abort(reason) }), (error) => error === reason);
  });

  test('an abort stops a wait for a retry', async () => {
    api.answerWith((_hit, res) => json(res, 503, {}, { 'retry-after': '20' }));
    const controller = new AbortController();
    const reason = new Error('gone');
    const pending = client().getJson('x', { signal: controller.signal });
    while (api.hits.length === 0) await sleep(5);
    await sleep(20);
    controller.abort(reason);
    await assert.rejects(pending, (error) => error === reason);
    assert.equal(api.hits.length, 1);
  });
});

describe('errors never show what the server said or a secret', () => {
  test('an upstream 400 to a write: rejected in our words; the body only in the cause, the token redacted', async () => {
    api.answerWith((hit, res) =>
      json(res, 400, { error: { message: `DISTINCTIVE-UPSTREAM-TEXT: you sent ${hit.headers.authorization}`, padding: 'x'.repeat(5000) } }),
    );
    const response = await client({ auth: { type: 'bearer', token: 'bearer-token-7f3a' } }).request({
      method: 'PATCH',
      path: "Customers('A1')",
      query: { apiVersion: '2' },
      json: { name: 'x' },
    });
    assert.equal(response.status, 400);
    const error = response.failure();
    assert.equal(error.code, 'rejected');
    assert.equal(error.message, "system 'erp' refused PATCH /odata/v4/crm/Customers('A1') (HTTP 400)");
    assert.doesNotMatch(error.message, /DISTINCTIVE|bearer-token|apiVersion/);
    assert.deepEqual(error.details, { system: 'erp', method: 'PATCH', path: "/odata/v4/crm/Customers('A1')", status: 400 });
    const log = logged(error);
    assert.match(log, /DISTINCTIVE-UPSTREAM-TEXT: you sent Bearer \[redacted\]/);
    assert.doesNotMatch(log, /bearer-token-7f3a/);
    const cause = error.cause as { body: string; status: number };
    assert.equal(cause.status, 400);
    assert.ok(cause.body.length <= 2049, 'the body is cut to about 2 KB');
  });

  test('no secret of any kind of auth reaches a message, a cause or the log, even when the server echoes the request', async () => {
    api.answerWith((hit, res) => {
      if (hit.url === '/oauth/token') return json(res, 200, { access_token: 'access-token-5d1e', expires_in: 3600 });
      json(res, 422, { echo: { headers: hit.headers, body: hit.body } });
    });
    const kinds = {
      basic: { type: 'basic', username: 'sync', password: 'basic-password-91' },
      bearer: { type: 'bearer', token: 'bearer-token-82' },
      apiKey: { type: 'apiKey', value: 'api-key-value-73' },
      oauth2: { type: 'oauth2', tokenUrl: `${api.origin}/oauth/token`, clientId: 'app', clientSecret: 'client-secret-64' },
    };
    const secrets = /basic-password-91|bearer-token-82|api-key-value-73|access-token-5d1e|client-secret-64/;
    for (const [kind, auth] of Object.entries(kinds)) {
      const response = await client({ auth }).request({ method: 'POST', path: 'orders', json: { note: 'x' } });
      const error = response.failure();
      assert.equal(error.message, "system 'erp' refused POST /odata/v4/crm/orders (HTTP 422)", kind);
      assert.doesNotMatch(logged(error), secrets, kind);
      assert.doesNotMatch(logged(error), new RegExp(Buffer.from('sync:basic-password-91').toString('base64')), kind);
      assert.match(logged(error), /\[redacted\]/, `${kind}: the echo was there, redacted`);
    }
  });

  test('the values of connection.headers are secrets too: an echo of them is redacted', async () => {
    api.answerWith((hit, res) => json(res, 422, { echo: hit.headers }));
    const response = await client({ headers: { 'x-api-token': 'header-secret-47', 'x-tenant': 'acme-tenant' } }).request({
      method: 'POST',
      path: 'orders',
      json: {},
    });
    const error = response.failure();
    assert.doesNotMatch(logged(error), /header-secret-47|acme-tenant/);
    assert.match(logged(error), /\[redacted\]/);
    assert.equal(api.hits[0]!.headers['x-api-token'], 'header-secret-47', 'sent as configured');
  });

  test('check() resolves on 2xx and says why not otherwise', async () => {
    api.answerWith((hit, res) => json(res, hit.url === '/odata/v4/crm/' ? 200 : 404, {}));
    await client().check();
    await rejectsWith(client().check('$metadata'), 'unavailable', /^system 'erp' answered GET \/odata\/v4\/crm\/\$metadata with HTTP 404$/);
    const closed = await RecordingServer.start();
    const baseUrl = `${closed.origin}/api/`;
    await closed.close();
    await rejectsWith(client({ baseUrl }).check(), 'unavailable', /^system 'erp' cannot be reached: connection refused \(GET \/api\/\)$/);
  });
});
