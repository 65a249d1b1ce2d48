/**
 * Writes through declared requests: what a create, a PATCH and a PUT send, where the key of a new
 * record comes from, the API's refusals in our words (400/409/422 rejected, a 404 to an update
 * rejected as gone, 401/403 unavailable), and writeMany — bounded concurrency, answers in request
 * order, a failing record alone, writes of one record in order; a system failing after some writes
 * answers those written and the failure for the others, and fails the batch only when nothing was
 * written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WriteRequest, WriteResult } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { collection, sendJson, startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';
import { itemConnection, items } from './fixture-system.js';

let server: FixtureServer;
let store: Array<Record<string, unknown>>;
let failingAfter: (creates: number) => void;

const itemOptions = {
  list: { path: '/items' },
  get: { path: '/items/{id}' },
  create: { path: '/items' },
  update: { path: '/items/{id}' },
  records: 'data',
  paging: { style: 'cursor', cursor: 'meta.next_cursor' },
  filters: [{ field: 'email', op: '=', param: 'email' }],
};

before(async () => {
  server = await startFixtureServer();
  store = items(5);
  collection(server, 'items', store, { paging: 'cursor' });
  // Slow writes, to see how many are under way at once.
  server.route('PATCH', '/items/*', async (request, response) => {
    await new Promise((resolve) => setTimeout(resolve, 60));
    const record = store.find((item) => String(item.id) === request.path.split('/').pop());
    if (record === undefined) return sendJson(response, 404, {});
    Object.assign(record, request.body);
    return sendJson(response, 200, record);
  });
  server.route('POST', '/wrapped', (request, response) => sendJson(response, 201, { data: { ...(request.body as object), id: 700 } }));
  server.route('PUT', '/accounts/*', (_request, response) => {
    response.writeHead(204);
    response.end();
  });
  server.route('GET', '/accounts', (_request, response) => sendJson(response, 200, []));
  server.route('POST', '/conflict', (_request, response) =>
    sendJson(response, 409, { message: 'duplicate key value violates unique constraint "items_email"' }),
  );
  server.route('GET', '/gone/*', (_request, response) => sendJson(response, 200, { id: 5, name: 'five' }));
  server.route('PATCH', '/gone/*', (_request, response) => sendJson(response, 404, { message: 'no row 5 in table items' }));
  // Takes `takes` creates, then fails with 503 (retries are off in the fixture system).
  let taken = 0;
  let takes = 0;
  server.route('POST', '/failing', (request, response) => {
    if (taken >= takes) return sendJson(response, 503, { message: 'maintenance' });
    taken += 1;
    return sendJson(response, 201, { ...(request.body as object), id: 800 + taken });
  });
  failingAfter = (creates: number) => {
    taken = 0;
    takes = creates;
  };
  server.route('POST', '/keyless', (request, response) => {
    const body = request.body as Record<string, unknown>;
    sendJson(response, 201, body.name === 'no key' ? { status: 'ok' } : { ...body, id: 900 });
  });
  // Keys as the API spells them, "007": the record reads as 7, an Integer, but lives at /padded/007.
  const padded = [{ id: '007', name: 'bond', rank: 1, email: 'bond@example.com' }];
  server.route('GET', '/padded', (_request, response) => sendJson(response, 200, padded));
  server.route('PATCH', '/padded/*', (request, response) => {
    const record = padded.find((item) => item.id === request.path.split('/').pop());
    if (record === undefined) return sendJson(response, 404, {});
    Object.assign(record, request.body);
    return sendJson(response, 200, record);
  });
  const tagged = [
    { id: 1, name: 'one', tags: { colour: 'red', size: 1 } },
    { id: 2, name: 'two', tags: { colour: 'blue', size: 1 } },
  ];
  server.route('GET', '/tagged', (_request, response) => sendJson(response, 200, tagged));
  server.route('PATCH', '/tagged/*', (request, response) => sendJson(response, 200, request.body));
  server.route('POST', '/forbidden', (_request, response) => sendJson(response, 403, { message: 'role reader may not write' }));
});
after(() => server.close());

const sent = (method: string) =>
  server.requests.filter((request) => request.method === method).map((request) => [request.path, request.body]);

test('a create sends the new record and takes the key from the answer', async () => {
  server.requests.length = 0;
  const connection = itemConnection(server.base, itemOptions);
  const result = await connection.write('Item', { values: { name: 'new', rank: '3', email: null } });
  assert.deepEqual(result, { action: 'created', key: { id: 6 } });
  assert.deepEqual(sent('POST'), [['/items', { name: 'new', rank: 3, email: null }]]);
});

test('create.key finds the key inside the answer; without an answer the key sent is the key', async () => {
  const wrapped = itemConnection(server.base, { ...itemOptions, create: { path: '/wrapped', key: 'data' } });
  assert.deepEqual(await wrapped.write('Item', { values: { name: 'w' } }), { action: 'created', key: { id: 700 } });
  const accounts = itemConnection(server.base, { list: { path: '/accounts' }, create: { method: 'PUT', path: '/accounts/{id}' } });
  server.requests.length = 0;
  assert.deepEqual(await accounts.write('Item', { values: { id: 41, name: 'by key' } }), { action: 'created', key: { id: 41 } });
  assert.deepEqual(sent('PUT'), [['/accounts/41', { id: 41, name: 'by key' }]]);
});

test('an update sends the fields written (PATCH) or the whole record changed (PUT)', async () => {
  const patching = itemConnection(server.base, itemOptions);
  server.requests.length = 0;
  assert.deepEqual(await patching.write('Item', { values: { id: 2, rank: 9 } }), { action: 'updated', key: { id: 2 } });
  assert.deepEqual(sent('PATCH'), [['/items/2', { rank: 9 }]]);
  const putting = itemConnection(server.base, { ...itemOptions, update: { method: 'PUT', path: '/items/{id}' } });
  server.requests.length = 0;
  assert.deepEqual(await putting.write('Item', { match: { email: 'i4@example.com' }, values: { name: 'four' } }), {
    action: 'updated',
    key: { id: 4 },
  });
  assert.deepEqual(sent('PUT'), [['/items/4', { id: 4, name: 'four', rank: 4, email: 'i4@example.com' }]]);
  assert.deepEqual(await putting.write('Item', { match: { email: 'i4@example.com' }, values: { name: 'x' }, onMatch: 'skip' }), {
    action: 'skipped',
    key: { id: 4 },
  });
});

test('an update addresses the record found by its key as the API spells it, not as it reads', async () => {
  const connection = itemConnection(server.base, { list: { path: '/padded' }, update: { path: '/padded/{id}' } });
  server.requests.length = 0;
  assert.deepEqual(await connection.write('Item', { match: { email: 'bond@example.com' }, values: { name: 'james' } }), {
    action: 'updated',
    key: { id: 7 },
  });
  assert.deepEqual(sent('PATCH'), [['/padded/007', { name: 'james' }]]);
});

test('a match on a Json field finds the record whose value has that content', async () => {
  const connection = itemConnection(server.base, {
    fields: { id: { type: 'Integer' }, name: { type: 'String' }, tags: { type: 'Json' } },
    list: { path: '/tagged' },
    update: { path: '/tagged/{id}' },
  });
  server.requests.length = 0;
  assert.deepEqual(await connection.write('Item', { match: { tags: { size: 1, colour: 'blue' } }, values: { name: 'blue one' } }), {
    action: 'updated',
    key: { id: 2 },
  });
  assert.deepEqual(sent('PATCH'), [['/tagged/2', { name: 'blue one' }]]);
  assert.deepEqual(
    await connection
      .write('Item', { match: { tags: { colour: 'green' } }, values: { name: 'x' }, onMatch: 'skip' })
      .catch((error: unknown) => error instanceof ConnectorError && error.code),
    'unsupported',
    'none found: a create, which this object cannot do',
  );
});

describe('refusals', () => {
  const refusal = async (options: Record<string, unknown>, request: WriteRequest) => {
    try {
      await itemConnection(server.base, { list: { path: '/items' }, records: 'data', ...options }).write('Item', request);
    } catch (error) {
      assert.ok(error instanceof ConnectorError);
      assert.doesNotMatch(error.message, /duplicate key|no row|role reader/, "the API's words stay in the log");
      return error;
    }
    return assert.fail('the write went through');
  };

  test('409 is rejected, naming the object and the operation', async () => {
    const error = await refusal({ create: { path: '/conflict' } }, { values: { name: 'dup' } });
    assert.equal(error.code, 'rejected');
    assert.equal(
      error.message,
      "Item: system 'api' refused to create the record (HTTP 409 to POST /conflict); check the values written against what the API accepts",
    );
  });

  test('a 404 to an update is rejected: the record is gone', async () => {
    const error = await refusal({ get: { path: '/gone/{id}' }, update: { path: '/gone/{id}' } }, { values: { id: 5, name: 'x' } });
    assert.equal(error.code, 'rejected');
    assert.match(error.message, /^Item: the record to update is no longer in system 'api' \(HTTP 404 to PATCH \/gone\/5\)/);
  });

  test('403 is unavailable: our credentials were refused', async () => {
    const error = await refusal({ create: { path: '/forbidden' } }, { values: { name: 'x' } });
    assert.equal(error.code, 'unavailable');
    assert.match(error.message, /refused our credentials/);
  });

  test('an object without create or update refuses what it cannot do', async () => {
    const error = await refusal({}, { values: { name: 'x' } });
    assert.equal(error.code, 'unsupported');
    assert.match(error.message, /needs objects\.Item\.create/);
  });

  test('checkWrite says so without a request: a create without create, an update that changes more than its key without update', () => {
    const requests = server.requests.length;
    const bare = itemConnection(server.base, { list: { path: '/items' }, records: 'data' });
    assert.match(bare.checkWrite('Item', { values: { name: 'x' } }, 'create')?.message ?? '', /needs objects\.Item\.create/);
    assert.match(bare.checkWrite('Item', { values: { id: 5, name: 'x' } }, 'update')?.message ?? '', /needs objects\.Item\.update/);
    assert.equal(bare.checkWrite('Item', { match: { id: 5 }, values: { id: 5 } }, 'update'), undefined, 'only the key: nothing to send');
    const paths = itemConnection(server.base, { list: { path: '/items' }, records: 'data', create: { path: '/items/{name}' } });
    assert.match(
      paths.checkWrite('Item', { values: { name: '..' } }, 'create')?.message ?? '',
      /the create path \/items\/\{name\} cannot take name/,
    );
    assert.equal(paths.checkWrite('Item', { values: { name: 'fine' } }, 'create'), undefined);
    assert.equal(server.requests.length, requests, 'nothing was sent');
  });
});

describe('writeMany', () => {
  test('at most writeConcurrency at once, answers in request order, a failing record alone', async () => {
    const connection = itemConnection(server.base, itemOptions, { writeConcurrency: 3 });
    server.resetInFlight();
    const requests: WriteRequest[] = [
      ...[1, 2, 3, 4, 5].map((id) => ({ values: { id, rank: id * 10 } })),
      { values: { id: 1, rank: 'not a number' } },
      ...[1, 2, 3, 4].map((id) => ({ values: { id, name: `again ${id}` } })),
    ];
    const results = await connection.writeMany('Item', requests);
    assert.deepEqual(
      results.map((result) => (result instanceof ConnectorError ? result.code : `${result.action} ${String(result.key.id)}`)),
      [
        'updated 1',
        'updated 2',
        'updated 3',
        'updated 4',
        'updated 5',
        'invalid-value',
        'updated 1',
        'updated 2',
        'updated 3',
        'updated 4',
      ],
    );
    assert.equal(server.inFlight().most, 3, 'three records written at once, never more');
    assert.deepEqual(
      store.slice(0, 5).map((item) => [item.rank, item.name]),
      [
        [10, 'again 1'],
        [20, 'again 2'],
        [30, 'again 3'],
        [40, 'again 4'],
        [50, 'item 5'],
      ],
    );
  });

  test('writes with one match run in order: the second finds what the first created', async () => {
    const connection = itemConnection(server.base, itemOptions, { writeConcurrency: 4 });
    const results = await connection.writeMany('Item', [
      { match: { email: 'twin@example.com' }, values: { name: 'first' } },
      { match: { email: 'other@example.com' }, values: { name: 'other' } },
      { match: { email: 'twin@example.com' }, values: { name: 'second' } },
    ]);
    assert.deepEqual(
      results.map((result) => (result instanceof ConnectorError ? result.message : result.action)),
      ['created', 'created', 'updated'],
    );
    assert.deepEqual(
      store.filter((item) => item.email === 'twin@example.com').map((item) => item.name),
      ['second'],
    );
  });

  const outcome = (result: WriteResult | ConnectorError) =>
    result instanceof ConnectorError ? result.code : `${result.action} ${String(result.key.id)}`;

  test('a system failing after some writes: those written are answered, the others carry its error', async () => {
    const connection = itemConnection(server.base, { ...itemOptions, create: { path: '/failing' } }, { writeConcurrency: 1 });
    failingAfter(2);
    server.requests.length = 0;
    const names = ['a', 'b', 'c', 'd'];
    const results = await connection.writeMany(
      'Item',
      names.map((name) => ({ values: { name } })),
    );
    assert.deepEqual(results.map(outcome), ['created 801', 'created 802', 'unavailable', 'unavailable']);
    assert.equal(results[2], results[3], 'one failure of the system: no write after it was started');
    assert.match((results[2] as ConnectorError).message, /503/);
    assert.equal(sent('POST').length, 3);
  });

  test('a system failing before anything was written fails the batch', async () => {
    const failing = itemConnection(server.base, { ...itemOptions, create: { path: '/failing' } }, { writeConcurrency: 1 });
    failingAfter(0);
    await assert.rejects(
      () => failing.writeMany('Item', [{ values: { name: 'a' } }, { values: { id: 1, rank: 'not a number' } }, { values: { name: 'b' } }]),
      (error: unknown) => error instanceof ConnectorError && error.code === 'unavailable' && /503/.test(error.message),
    );
    const unreachable = itemConnection('http://127.0.0.1:1/', itemOptions);
    await assert.rejects(
      () => unreachable.writeMany('Item', [{ values: { id: 1, name: 'a' } }, { values: { name: 'b' } }]),
      (error: unknown) => error instanceof ConnectorError && error.code === 'unavailable' && /cannot be reached/.test(error.message),
    );
  });

  test('a create whose answer has no key fails that record alone', async () => {
    const connection = itemConnection(server.base, { ...itemOptions, create: { path: '/keyless' } }, { writeConcurrency: 1 });
    const results = await connection.writeMany('Item', [
      { values: { name: 'x' } },
      { values: { name: 'no key' } },
      { values: { name: 'y' } },
    ]);
    assert.deepEqual(results.map(outcome), ['created 900', 'definition-mismatch', 'created 900']);
    assert.match(
      (results[1] as ConnectorError).message,
      /without the new record's id; set objects\.Item\.create\.key .*\(the record was created\)/,
    );
  });
});
