/**
 * Discover samples answers, since an API lists no collections: the paths of connection.discover
 * (below baseUrl, a leading / included: records at the top of the answer, or in its one list of records) and the declared objects'
 * lists. Without either there is nothing to sample, and it says so.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as httpConnector from '../../../../connectors/http/index.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { sendJson, startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';

let server: FixtureServer;

before(async () => {
  server = await startFixtureServer();
  server.route('GET', '/v1/orders', (_request, response) =>
    sendJson(response, 200, [
      { id: 1, total: 9.5, placed: '2024-01-02T03:04:05Z', paid: true, lines: [{ sku: 'a' }], note: null },
      { id: 2, total: 12, placed: '2024-01-03T00:00:00Z', paid: false, lines: [] },
    ]),
  );
  server.route('GET', '/v1/people', (_request, response) =>
    sendJson(response, 200, {
      meta: { count: 2 },
      results: [
        { handle: 'ada', born: '1815-12-10' },
        { handle: 'alan', born: '1912-06-23' },
      ],
    }),
  );
  server.route('GET', '/v1/status', (_request, response) => sendJson(response, 200, { ok: true }));
});
after(() => server.close());

const system = (connection: Record<string, unknown>, objects: Record<string, unknown> = {}): SystemDefinition =>
  ({
    kind: 'System',
    id: 'shop',
    connector: 'http',
    connection: { baseUrl: `${server.base}/v1/`, ...connection },
    objects,
    queries: {},
  }) as unknown as SystemDefinition;

const discover = (definition: SystemDefinition) => httpConnector.createConnection(definition, { baseDirectory: process.cwd() }).discover();

test('the paths of connection.discover are proposed as objects, fields typed from their records', async () => {
  const [orders, people] = await discover(system({ discover: ['orders', '/people'] }));
  assert.deepEqual(
    { ...orders, notes: undefined },
    {
      name: 'orders',
      options: { list: { path: 'orders' } },
      key: ['id'],
      fields: [
        { name: 'id', type: 'Integer', nullable: false },
        { name: 'total', type: 'Number', nullable: false },
        { name: 'placed', type: 'DateTime', nullable: false },
        { name: 'paid', type: 'Boolean', nullable: false },
        { name: 'lines', type: 'Json', nullable: false },
        { name: 'note', type: 'String', nullable: true },
      ],
      notes: undefined,
    },
  );
  assert.match(orders!.notes!.join('\n'), /sampled from 2 record\(s\) of GET orders; add get, create, update and paging/);
  assert.match(orders!.notes!.join('\n'), /note: only null was seen/);
  assert.deepEqual(people!.options, { list: { path: '/people' }, records: 'results' });
  assert.deepEqual(people!.key, []);
  assert.match(people!.notes!.join('\n'), /no id in every record: name the key/);
});

test('a discover path without a list of records is an error naming it', async () => {
  await assert.rejects(
    () => discover(system({ discover: ['status'] })),
    (error: unknown) =>
      error instanceof ConnectorError && /GET status \(connection\.discover\) answered no list of records/.test(error.message),
  );
});

test('declared objects are sampled through their list, keeping their options and key', async () => {
  const [order] = await discover(
    system(
      {},
      {
        Order: { list: { path: 'orders' }, get: { path: 'orders/{id}' }, key: ['id'], fields: { id: { type: 'Integer' } } },
      },
    ),
  );
  assert.equal(order!.name, 'Order');
  assert.deepEqual(order!.options, { list: { path: 'orders' }, get: { path: 'orders/{id}' } });
  assert.deepEqual(order!.key, ['id']);
  assert.equal(order!.fields.length, 6);
});

test('with no objects and no discover paths there is nothing to sample, and it says what to add', async () => {
  await assert.rejects(
    () => discover(system({})),
    (error: unknown) =>
      error instanceof ConnectorError &&
      error.code === 'unsupported' &&
      /system 'shop' has nothing to discover: .* add connection\.discover: \[\/customers, …\] or an object with list: \{ path: … \}/.test(
        error.message,
      ),
  );
});
