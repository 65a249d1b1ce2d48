/**
 * The shared web client's behaviour, seen through the http connector's reads and writes: the
 * request rate of connection.rateLimit, retries of 429 and 503 honouring Retry-After, the
 * statement timeout of each request ('timeout'), the answer size cap ('too-large'), credentials
 * refused ('unavailable'), and errors in our words that never carry what the server said — not its
 * error text, not a secret it echoes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConnectorError, type ConnectorErrorCode } from '../../../../connectors/connector-error.js';
import { sendJson, startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';
import { ids, itemConnection, items, readAll } from './fixture-system.js';

const ITEMS = items(10);
const SECRET = 'tok_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
const UPSTREAM_TEXT = 'NullPointerException at com.example.Orders';
let server: FixtureServer;

before(async () => {
  server = await startFixtureServer();
  server.route('GET', '/items', (request, response) => {
    const start = Number(request.query.get('offset') ?? 0);
    sendJson(response, 200, ITEMS.slice(start, start + Number(request.query.get('limit') ?? 100)));
  });
  let calls = 0;
  server.route('GET', '/busy-once', (_request, response) => {
    calls += 1;
    if (calls % 2 === 1) return sendJson(response, 429, { error: 'slow down' }, { 'retry-after': '1' });
    return sendJson(response, 200, ITEMS);
  });
  let unavailable = 0;
  server.route('GET', '/unavailable-once', (_request, response) => {
    unavailable += 1;
    return unavailable % 2 === 1 ? sendJson(response, 503, { error: 'maintenance' }) : sendJson(response, 200, ITEMS);
  });
  server.route('GET', '/busy-long', (_request, response) => sendJson(response, 429, {}, { 'retry-after': '3600' }));
  server.route('GET', '/slow', async (_request, response) => {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    if (!response.destroyed) sendJson(response, 200, ITEMS);
  });
  server.route('GET', '/huge', (_request, response) =>
    sendJson(
      response,
      200,
      Array.from({ length: 2000 }, (_, i) => ({ id: i, name: 'x'.repeat(50) })),
    ),
  );
  server.route('GET', '/failing', (request, response) =>
    sendJson(response, 500, { error: `${UPSTREAM_TEXT}: ${request.headers.authorization ?? ''}`, token: SECRET }),
  );
  server.route('GET', '/locked', (_request, response) => sendJson(response, 401, { error: `bad token ${SECRET}` }));
  server.route('POST', '/items', (request, response) =>
    sendJson(response, 422, {
      error: `${UPSTREAM_TEXT}: field name ${JSON.stringify(request.body)} invalid`,
      echo: request.headers.authorization,
    }),
  );
});
after(() => server.close());

async function failure(action: () => Promise<unknown>, code: ConnectorErrorCode): Promise<ConnectorError> {
  try {
    await action();
  } catch (error) {
    assert.ok(error instanceof ConnectorError, String(error));
    assert.equal(error.code, code, error.message);
    return error;
  }
  return assert.fail('expected a failure');
}

const auth = { auth: { type: 'bearer', token: SECRET } };

test('connection.rateLimit spaces the requests of a read', async () => {
  server.requests.length = 0;
  const connection = itemConnection(
    server.base,
    { list: { path: '/items' }, paging: { style: 'offset', pageSize: 2 } },
    { rateLimit: { requests: 2, per: '1s' } },
  );
  const started = performance.now();
  assert.deepEqual(ids((await readAll(connection)).records), ids(ITEMS));
  const times = server.requests.map((request) => request.at - started);
  assert.equal(times.length, 6);
  // Two at once, then one every half second.
  assert.ok(times[5]! >= 1800, `the sixth request came after ${Math.round(times[5]!)} ms`);
  for (let i = 3; i < times.length; i++)
    assert.ok(times[i]! - times[i - 1]! >= 400, `gap before request ${i + 1}: ${times[i]! - times[i - 1]!}`);
});

test('a 429 is retried after its Retry-After, a 503 after a backoff', async () => {
  server.requests.length = 0;
  const connection = itemConnection(server.base, { list: { path: '/busy-once' } }, { retries: { max: 2, maxWait: '5s' } });
  assert.deepEqual(ids((await readAll(connection)).records), ids(ITEMS));
  const [first, second] = server.requests;
  assert.equal(server.requests.length, 2);
  assert.ok(second!.at - first!.at >= 950, `retried after ${Math.round(second!.at - first!.at)} ms, not the second asked for`);
  const again = itemConnection(server.base, { list: { path: '/unavailable-once' } }, { retries: { max: 1, maxWait: '5s' } });
  assert.deepEqual(ids((await readAll(again)).records), ids(ITEMS));
});

test('a Retry-After longer than retries.maxWait allows fails at once, busy, saying when to come back', async () => {
  const connection = itemConnection(server.base, { list: { path: '/busy-long' } }, { retries: { max: 3, maxWait: '10s' } });
  const started = performance.now();
  const error = await failure(() => readAll(connection), 'busy');
  assert.ok(performance.now() - started < 1000);
  assert.equal(error.details?.retryAfterSeconds, 3600);
});

test('a request longer than limits.statementTimeout is stopped: timeout', async () => {
  const connection = itemConnection(server.base, { list: { path: '/slow' } }, {}, { statementTimeout: '300ms' });
  const started = performance.now();
  const error = await failure(() => readAll(connection), 'timeout');
  assert.ok(performance.now() - started < 1500);
  assert.match(error.message, /statement timeout of 300ms/);
});

test('an answer over connection.maxResponseBytes is cut off: too-large', async () => {
  const connection = itemConnection(server.base, { list: { path: '/huge' } }, { maxResponseBytes: '16kib' });
  const error = await failure(() => readAll(connection), 'too-large');
  assert.match(error.message, /maxResponseBytes/);
});

test("the server's error text and a secret it echoes reach no error, message or detail", async () => {
  const reading = itemConnection(server.base, { list: { path: '/failing' } }, auth);
  const read = await failure(() => readAll(reading), 'unavailable');
  const refused = await failure(() => readAll(itemConnection(server.base, { list: { path: '/locked' } }, auth)), 'unavailable');
  assert.match(refused.message, /refused our credentials/);
  const writing = itemConnection(server.base, { list: { path: '/items' }, create: { path: '/items' } }, auth);
  const write = await failure(() => writing.write('Item', { values: { name: 'x' } }), 'rejected');
  assert.match(write.message, /^Item: system 'api' refused to create the record \(HTTP 422 to POST \/items\)/);
  for (const error of [read, refused, write]) {
    const shown = `${error.message} ${JSON.stringify(error.details)}`;
    assert.doesNotMatch(shown, new RegExp(SECRET));
    assert.doesNotMatch(shown, /NullPointerException|bad token|slow down/);
  }
  // The log may see what the server said (as the cause), with our secret taken out.
  const cause = JSON.stringify((write.cause as ConnectorError).cause, ['status', 'body']);
  assert.match(cause, /NullPointerException/);
  assert.doesNotMatch(cause, new RegExp(SECRET));
});
