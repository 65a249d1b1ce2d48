/**
 * What the http connector sends back of a record it read, when the record holds whole numbers past
 * 2^53: a PUT of the whole record and a PATCH of a group merged over the entries the record had
 * send the declared Integers as the bare numbers the API sent, and everything else — a code the
 * API sends as a zero-padded string, a property the object does not declare — as it came.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import * as httpConnector from '../../../../connectors/http/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';

/** The API's record, as it writes it. */
const record =
  '{"id":9007199254740993,"name":"first","ext":"00009007199254740995","other":9007199254740997,' +
  '"accounts":{"main":{"acct":9007199254740999,"city":"Leeds"},"invoice":{"acct":9007199254741001,"city":"York"}}}';

let api: FixtureServer;
before(async () => {
  api = await startFixtureServer();
  for (const path of ['/patched', '/replaced']) {
    api.route('GET', path, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`[${record}]`);
    });
    for (const method of ['PATCH', 'PUT']) {
      api.route(method, `${path}/*`, (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
      });
    }
  }
});
after(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
});

function connection() {
  const object = (path: string, method: string) => ({
    list: { path },
    update: { method, path: `${path}/{id}` },
    key: ['id'],
    fields: { id: { type: 'Integer' }, name: { type: 'String' }, ext: { type: 'Integer' } },
    groups: { accounts: { types: ['main', 'invoice'], fields: { acct: { type: 'Integer' }, city: { type: 'String' } } } },
  });
  const system = {
    kind: 'System',
    id: 'api',
    connector: 'http',
    connection: { baseUrl: `${api.base}/`, retries: { max: 0 } },
    queries: {},
    objects: { Patched: object('/patched', 'PATCH'), Replaced: object('/replaced', 'PUT') },
  } as unknown as SystemDefinition;
  return httpConnector.createConnection(system, { baseDirectory: process.cwd() });
}

const sent = (method: string) => {
  const found = api.requests.filter((request) => request.method === method);
  assert.equal(found.length, 1, JSON.stringify(api.requests.map((request) => `${request.method} ${request.path}`)));
  return found[0]!.text;
};

test('a group entry written over those the record had: every acct stays a bare number', async () => {
  const result = await connection().write('Patched', {
    values: { id: '9007199254740993' },
    groups: { accounts: { main: { city: 'Leeds 2' } } },
  });
  assert.equal(result.action, 'updated');
  assert.equal(
    sent('PATCH'),
    '{"accounts":{"main":{"acct":9007199254740999,"city":"Leeds 2"},"invoice":{"acct":9007199254741001,"city":"York"}}}',
  );
});

test('a PUT sends the record back as the API wrote it, with the change', async () => {
  const result = await connection().write('Replaced', { values: { id: '9007199254740993', name: 'renamed' } });
  assert.equal(result.action, 'updated');
  const text = sent('PUT');
  // Valid JSON, whose numbers and strings are those of the API's record.
  assert.doesNotThrow(() => JSON.parse(text), text);
  assert.match(text, /"id":9007199254740993[,}]/);
  assert.match(text, /"name":"renamed"/);
  assert.match(text, /"ext":"00009007199254740995"/);
  assert.match(text, /"acct":9007199254740999,"city":"Leeds"/);
  // Undeclared: the connector keeps what it read, the digits, as a string.
  assert.match(text, /"other":"9007199254740997"/);
});
