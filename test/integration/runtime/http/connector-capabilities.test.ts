/**
 * A connection route asks of the system's connector only what its spec declares it can do: a
 * request needing a capability the connector lacks is answered 422 naming it, before anything is
 * read or written. The registry of connectors is frozen, so the HTTP tests serve the quickstart
 * with the sql connector's spec declaring fewer capabilities (the connections stay the real sql
 * connector's: what it could do is exactly what must not be asked of it here).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ConnectorCapabilities, ConnectorSpecs } from '../../../../definitions/connector-spec.js';
import type { SystemEntry } from '../../../../definitions/snapshot.js';
import { HttpProblem } from '../../../../runtime/errors.js';
import { lackingCapabilities, requireCapabilities } from '../../../../runtime/http/require-capability.js';
import { quickstartApp, quickstartDir, tableContents, type Answer, type HttpApp } from '../../../support/http-app.js';

const everything: ConnectorCapabilities = {
  filterPushDown: true,
  limit: true,
  skip: true,
  order: true,
  count: true,
  typedGroups: true,
  transactions: true,
  readOnlyQuery: true,
};

function system(capabilities: Partial<ConnectorCapabilities>): SystemEntry {
  return {
    definition: { id: 'shop', connector: 'rest' } as SystemEntry['definition'],
    origin: { file: 'systems.yaml', line: 1, column: 1 },
    capabilities: { ...everything, ...capabilities },
  };
}

describe('requireCapabilities', () => {
  it('lets through what the connector can do', () => {
    assert.doesNotThrow(() => requireCapabilities(system({}), [{ capability: 'limit', asked: 'GETDATA_LIMIT', path: '/0/name' }]));
    assert.doesNotThrow(() => requireCapabilities(system({ limit: false }), []));
  });

  it('refuses with 422, naming each lacking capability, its system and connector, where it was asked and the fix', () => {
    const shop = system({ limit: false, order: false });
    assert.throws(
      () =>
        requireCapabilities(shop, [
          { capability: 'limit', asked: 'GETDATA_LIMIT', path: '/0/name' },
          { capability: 'skip', asked: 'GETDATA_SKIP', path: '/1/name' },
          { capability: 'order', asked: 'GETDATA_ORDER', path: '/2/name', fix: 'sort the records yourself' },
        ]),
      (error: unknown) => {
        assert.ok(error instanceof HttpProblem);
        assert.equal(error.status, 422);
        assert.equal(error.code, 'unsupported');
        assert.deepEqual(error.extra.errors, [
          {
            path: '/0/name',
            message:
              'GETDATA_LIMIT needs the capability limit (limiting how many records are answered), which the rest connector of system shop does not have: leave GETDATA_LIMIT out',
          },
          {
            path: '/2/name',
            message:
              'GETDATA_ORDER needs the capability order (ordering records), which the rest connector of system shop does not have: sort the records yourself',
          },
        ]);
        assert.match(error.detail, /GETDATA_LIMIT needs the capability limit .*; GETDATA_ORDER needs the capability order/);
        return true;
      },
    );
  });

  it('lists what a connector lacks, in declaration order', () => {
    assert.deepEqual(lackingCapabilities(system({})), []);
    assert.deepEqual(lackingCapabilities(system({ readOnlyQuery: false, skip: false })), ['skip', 'readOnlyQuery']);
  });
});

/** The registered specs, with the sql connector lacking limit, order, count, typed groups and read-only queries. */
function lessCapableSql(registered: ConnectorSpecs): ConnectorSpecs {
  const sql = registered.get('sql')!;
  const capabilities = { ...sql.capabilities, limit: false, order: false, count: false, typedGroups: false, readOnlyQuery: false };
  return new Map([...registered, ['sql', { ...sql, capabilities }]]);
}

function assertUnsupported(answer: Answer, capability: string, path: string): void {
  assert.equal(answer.status, 422, answer.text);
  assert.equal(answer.type, 'application/problem+json');
  assert.equal(answer.json.type, 'urn:syncline:problem:unsupported');
  assert.match(
    answer.json.detail,
    new RegExp(`needs the capability ${capability} \\(.*\\), which the sql connector of system crm does not have`),
  );
  assert.deepEqual(
    answer.json.errors.map((e: { path: string }) => e.path),
    [path],
  );
}

describe('connection routes on a connector lacking capabilities', () => {
  let app: HttpApp;
  before(async () => {
    // The quickstart's sync sorts its source, which a connector without `order` cannot do: such a
    // definition is refused when it loads (test/unit/definitions/connector-capabilities.test.ts),
    // so the sync is served here without its order.
    const syncs = (await readFile(join(quickstartDir, 'syncs.yaml'), 'utf8')).replace(/^ {2}order: .*\n/m, '');
    app = await quickstartApp({ connectorSpecs: lessCapableSql, files: { 'syncs.yaml': syncs } });
  });
  after(() => app.close());

  const read = (name: string, value: string) => ({ name, value });
  const ids = (answer: Answer) => (answer.json as Array<{ id: number }>).map((record) => record.id);

  it('refuses GETDATA_LIMIT and GETDATA_ORDER with 422 naming limit and order, and still takes GETDATA_SKIP and GETDATA_WHERE', async () => {
    const url = '/api/RunConnectionGetDataMin/crm/Customer';
    assertUnsupported(await app.post(url, [read('GETDATA_WHERE', 'active = true'), read('getdata_limit', '2')]), 'limit', '/1/name');
    assertUnsupported(await app.post(url, [read('GETDATA_ORDER', 'name DESC')]), 'order', '/0/name');
    const both = await app.post(url, [read('GETDATA_LIMIT', '2'), read('GETDATA_ORDER', 'name')]);
    assert.deepEqual(
      both.json.errors.map((e: { path: string }) => e.path),
      ['/0/name', '/1/name'],
      'every lacking capability at once',
    );
    const skipped = await app.post(url, [read('GETDATA_SKIP', '4'), read('GETDATA_WHERE', 'id > 0')]);
    assert.equal(skipped.status, 200, skipped.text);
    assert.deepEqual(ids(skipped), [5, 6]);
  });

  it('answers RunConnectionGetData with the total of what it read without count, and refuses a page, whose total it cannot know', async () => {
    const url = '/api/RunConnectionGetData/crm/Customer';
    const all = await app.post(url, [read('GETDATA_WHERE', 'active = true')]);
    assert.equal(all.status, 200, all.text);
    assert.equal(all.json.total, all.json.records.length);
    assert.ok(all.json.total > 0);
    const page = await app.post(url, [read('GETDATA_SKIP', '1')]);
    assertUnsupported(page, 'count', '/0/name');
    assert.match(page.json.detail, /the total of a page needs the capability count .*RunConnectionGetDataMin/);
  });

  it('reads one record by its key without a limit', async () => {
    const answer = await app.get('/api/GetDataObject/crm/Customer/1');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.record.name, 'Ada Lovelace');
  });

  it('refuses a free query without read-only queries, and a typed group write without typed groups, changing nothing', async () => {
    const before = await tableContents(app);
    const query = await app.post('/api/RunConnectionGetQueryData/crm', {
      columns: [{ Name: 'n', ColumnType: 'Integer' }],
      Statement: 'SELECT COUNT(*) AS n FROM customers',
    });
    assertUnsupported(query, 'readOnlyQuery', '/Statement');
    const write = await app.post('/api/RunConnectionSetData/crm/Customer', {
      columns: [
        { name: 'id', value: 1 },
        { name: 'addresses[main].city', value: 'Paris' },
      ],
    });
    assertUnsupported(write, 'typedGroups', '/columns');
    assert.deepEqual(await tableContents(app), before);
  });

  it('says in the interface description what the system lacks', async () => {
    const document = (await app.get('/api/openapi.json')).json;
    const parameter = document.paths['/api/RunConnectionGetData/{system_key}/{object_type}'].post.parameters.find(
      (p: { name: string }) => p.name === 'system_key',
    );
    assert.match(
      parameter.description,
      /crm lacks limit, order, count, typedGroups, readOnlyQuery; erp lacks limit, order, count, typedGroups, readOnlyQuery/,
    );
  });
});
