/**
 * Whole numbers past 2^53 (and decimals no double holds) written to systems that speak JSON go as
 * bare JSON numbers with all their digits: the body a REST API receives on create, on a PATCH and
 * on a PUT of the whole record, and the rows of JSON and NDJSON files. Before, such a value went as
 * the string of its digits (`"id":"9007199254740993"`), which an API that declares the field a
 * number may refuse, and which turned a file's numbers into strings on every rewritten row.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';
import { startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

const source = (first: string) => `[{"id":9007199254740993,"name":"${first}"},\n{"id":9007199254740992,"name":"second"}]\n`;

/** Two API collections that keep each record as the JSON text it was sent, and the requests' bodies as text. */
interface Collection {
  stored: Map<string, string>;
  bodies: Array<{ method: string; path: string; text: string }>;
}

function serveCollection(api: FixtureServer, path: string): Collection {
  const collection: Collection = { stored: new Map(), bodies: [] };
  api.route('GET', path, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(`[${[...collection.stored.values()].join(',')}]`);
  });
  api.route('POST', path, (request, response) => {
    const text = request.text;
    collection.bodies.push({ method: 'POST', path: request.path, text });
    // The id as sent, digits and all: what the API keys the record by.
    const id = /"id":(-?\d+)/.exec(text)?.[1] ?? 'none';
    collection.stored.set(id, text);
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(text);
  });
  for (const method of ['PATCH', 'PUT']) {
    api.route(method, `${path}/*`, (request, response) => {
      collection.bodies.push({ method, path: request.path, text: request.text });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  }
  return collection;
}

await describeEachRuntimeDatabase('whole numbers past 2^53 written to JSON systems', (runtime) => {
  let api: FixtureServer;
  let patched: Collection;
  let replaced: Collection;
  let directory: string;
  let connections: ConnectionPool;
  let snapshot: Snapshot;
  const run = async (processId: string) => {
    const outcome = await runProcess({ snapshot, connections, db: runtime() }, { processId });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    return outcome.statistics;
  };

  before(async () => {
    api = await startFixtureServer();
    patched = serveCollection(api, '/orders');
    replaced = serveCollection(api, '/replaced');
    directory = mkdtempSync(join(tmpdir(), 'syncline-wide-written-'));
    const apiObject = (path: string, method: string) => `
    list: { path: ${path} }
    create: { path: ${path} }
    update: { method: ${method}, path: "${path}/{id}" }
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
      amount: { type: Number }`;
    const sync = (id: string, system: string, object: string, mapping: string) => `
kind: Sync
id: ${id}
source: { system: feed, object: Order }
target: { system: ${system}, object: ${object} }
mapping: '${mapping}'
match: { where: "id = #id#" }`;
    snapshot = await definitionsSnapshot(
      `kind: System
id: feed
connector: file
connection: { directory: ${JSON.stringify(directory)} }
objects:
  Order: { path: orders.json, key: [id], fields: { id: { type: Integer }, name: { type: String } } }
  Copy: { path: copies.json, key: [id], fields: { id: { type: Integer }, name: { type: String } } }
  Line: { path: lines.ndjson, key: [id], fields: { id: { type: Integer }, name: { type: String } } }
  Kept:
    path: kept.ndjson
    key: [id]
    fields: { id: { type: Integer }, name: { type: String }, amount: { type: Number }, code: { type: Integer } }
---
kind: System
id: shop
connector: http
connection: { baseUrl: "${api.base}/", retries: { max: 0 } }
objects:
  Order:${apiObject('/orders', 'PATCH')}
  Replaced:${apiObject('/replaced', 'PUT')}
---${sync('to-patched', 'shop', 'Order', '{ "id": id, "name": name, "amount": "12345678901234567.25" }')}
---${sync('to-replaced', 'shop', 'Replaced', '{ "id": id, "name": name, "amount": "12345678901234567.25" }')}
---${sync('to-json', 'feed', 'Copy', '{ "id": id, "name": name }')}
---${sync('to-ndjson', 'feed', 'Line', '{ "id": id, "name": name }')}
---${sync('to-kept', 'feed', 'Kept', '{ "id": id, "name": name }')}
`,
    );
    connections = new ConnectionPool({ baseDirectory: directory });
  });

  after(async () => {
    await connections?.closeAll();
    await api?.close();
  });

  beforeEach(() => {
    writeFileSync(join(directory, 'orders.json'), source('first'));
  });

  test('a REST API receives the ids and the decimal as bare numbers on create, on PATCH and on PUT', async () => {
    assert.deepEqual(await run('to-patched'), { read: 2, created: 2, updated: 0, skipped: 0, failed: 0 });
    const created = patched.bodies.map((body) => body.text);
    assert.equal(created.length, 2);
    assert.match(created[0]!, /"id":9007199254740993[,}]/);
    assert.match(created[1]!, /"id":9007199254740992[,}]/);
    for (const text of created) assert.match(text, /"amount":12345678901234567\.25[,}]/);

    // The API answers its records with those numbers; the changed one is found by its exact id.
    writeFileSync(join(directory, 'orders.json'), source('first, renamed'));
    patched.bodies.length = 0;
    const again = await run('to-patched');
    assert.equal(again.created, 0, JSON.stringify(again));
    const patches = patched.bodies.filter((body) => body.method === 'PATCH');
    assert.ok(patches.length >= 1, JSON.stringify(patched.bodies));
    const renamed = patches.find((body) => body.text.includes('first, renamed'));
    assert.equal(renamed?.path, '/orders/9007199254740993', JSON.stringify(patches));
    assert.ok(
      patches.every((body) => !/"\d{16,}/.test(body.text)),
      `no number as a string: ${JSON.stringify(patches)}`,
    );

    assert.deepEqual(await run('to-replaced'), { read: 2, created: 2, updated: 0, skipped: 0, failed: 0 });
    writeFileSync(join(directory, 'orders.json'), source('first, renamed'));
    replaced.bodies.length = 0;
    await run('to-replaced');
    const put = replaced.bodies.find((body) => body.method === 'PUT' && body.text.includes('first, renamed'));
    assert.ok(put !== undefined, JSON.stringify(replaced.bodies));
    assert.equal(put.path, '/replaced/9007199254740993');
    // The whole record goes back, its id as the API had it: a number.
    assert.match(put.text, /"id":9007199254740993[,}]/);
    assert.match(put.text, /"amount":12345678901234567\.25[,}]/);
  });

  for (const [processId, file] of [
    ['to-json', 'copies.json'],
    ['to-ndjson', 'lines.ndjson'],
  ] as const) {
    test(`${file}: rows are written with the numbers bare, read back exactly, and rewritten only where they changed`, async () => {
      assert.deepEqual(await run(processId), { read: 2, created: 2, updated: 0, skipped: 0, failed: 0 });
      const written = readFileSync(join(directory, file), 'utf8');
      assert.match(written, /"id":9007199254740993,"name":"first"/);
      assert.match(written, /"id":9007199254740992,"name":"second"/);
      assert.doesNotMatch(written, /"\d{16,}"/);

      // Read back with every digit: both records are found again as they are.
      const again = await run(processId);
      assert.equal(again.created, 0, JSON.stringify(again));
      assert.equal(again.updated, 0, JSON.stringify(again));

      writeFileSync(join(directory, 'orders.json'), source('first, renamed'));
      const renamed = await run(processId);
      assert.equal(renamed.updated, 1, JSON.stringify(renamed));
      const rewritten = readFileSync(join(directory, file), 'utf8');
      assert.match(rewritten, /"id":9007199254740993,"name":"first, renamed"/);
      assert.match(rewritten, /"id":9007199254740992,"name":"second"/);
      assert.doesNotMatch(rewritten, /"\d{16,}"/);
    });
  }

  test('a rewritten row keeps what the write did not touch as the file had it: numbers as numbers, strings as strings', async () => {
    // As another tool wrote it: an amount and a code as strings, an undeclared number past 2^53.
    const kept = '{"id":9007199254740993,"name":"old","amount":"12.50","code":"9007199254740997","ref":9007199254740999}';
    const untouched = '{"id":9007199254740992,"name":"second","amount":1.5,"code":9007199254741001,"ref":"x"}';
    writeFileSync(join(directory, 'kept.ndjson'), `${kept}\n${untouched}\n`);
    const outcome = await run('to-kept');
    assert.equal(outcome.updated, 1, JSON.stringify(outcome));
    assert.equal(readFileSync(join(directory, 'kept.ndjson'), 'utf8'), `${kept.replace('"old"', '"first"')}\n${untouched}\n`);
  });
});
