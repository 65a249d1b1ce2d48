/**
 * An Edm.Int64 past 2^53 and an Edm.Decimal no double holds are sent as bare JSON numbers with all
 * their digits — the JSON format's default representation, which a service reads without
 * IEEE754Compatible=true — in a single create, an update, and the requests of a JSON $batch. Before,
 * they went as strings, which the format allows only with that parameter. The service is a loopback
 * server that records what it was sent (SAP CAP reads numbers into doubles, so it cannot show this).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { Connection } from '../../../../connectors/connection.js';
import * as odata from '../../../../connectors/odata/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { json, RecordingServer } from '../web/web-test-support.js';

const METADATA = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="T" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EntityType Name="Entry">
        <Key><PropertyRef Name="id"/></Key>
        <Property Name="id" Type="Edm.Int64" Nullable="false"/>
        <Property Name="amount" Type="Edm.Decimal" Precision="34" Scale="4"/>
        <Property Name="note" Type="Edm.String"/>
        <Property Name="accounts" Type="Collection(T.Account)"/>
      </EntityType>
      <ComplexType Name="Account">
        <Property Name="kind" Type="Edm.String"/>
        <Property Name="acct" Type="Edm.Int64"/>
        <Property Name="city" Type="Edm.String"/>
      </ComplexType>
      <EntityContainer Name="C"><EntitySet Name="Entries" EntityType="T.Entry"/></EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

/** The entity as the service holds it: the body it was sent, as text. */
const stored = new Map<string, string>();
let service: RecordingServer;

before(async () => {
  service = await RecordingServer.start();
  service.answerWith((hit, res) => {
    const url = hit.url;
    if (url.startsWith('/svc/$metadata')) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(METADATA);
    } else if (hit.method === 'GET' && url.startsWith('/svc/Entries(')) {
      const id = /^\/svc\/Entries\((-?\d+)\)/.exec(url)?.[1] ?? '';
      const text = stored.get(id);
      if (text === undefined) json(res, 404, { error: { code: '404', message: 'Not Found' } });
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text);
      }
    } else if (hit.method === 'GET' && url.startsWith('/svc/Entries')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"value":[${[...stored.values()].join(',')}]}`);
    } else if (hit.method === 'POST' && url.startsWith('/svc/Entries')) {
      stored.set(/"id":(-?\d+)/.exec(hit.body)?.[1] ?? '', hit.body);
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(hit.body);
    } else if (hit.method === 'PATCH') {
      res.writeHead(204);
      res.end();
    } else if (hit.method === 'POST' && url.startsWith('/svc/$batch')) {
      // Each request's body, as sent, is the entity it created.
      const bodies = [...hit.body.matchAll(/"id":"(r\d+-\d+)"[\s\S]*?"body":(\{[^}]*\})/g)];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"responses":[${bodies.map(([, id, body]) => `{"id":"${id}","status":201,"body":${body}}`).join(',')}]}`);
    } else json(res, 404, { error: { code: '404', message: `no route ${hit.method} ${url}` } });
  });
});
after(() => service.close());
beforeEach(() => {
  stored.clear();
  service.hits.length = 0;
});

function connect(batch: 'never' | 'json'): Connection {
  const system = {
    kind: 'System',
    id: 'ledger',
    connector: 'odata',
    connection: { baseUrl: `${service.origin}/svc/`, batch, retries: { max: 0, maxWait: '1s' } },
    objects: {
      Entry: {
        entitySet: 'Entries',
        key: ['id'],
        fields: { id: { type: 'Integer' }, amount: { type: 'Number' }, note: { type: 'String' } },
        groups: {
          accounts: {
            property: 'accounts',
            typeField: 'kind',
            types: ['main', 'invoice'],
            fields: { acct: { type: 'Integer' }, city: { type: 'String' } },
          },
        },
      },
    },
    queries: {},
  } as unknown as SystemDefinition;
  return odata.createConnection(system, { baseDirectory: process.cwd() });
}

const sent = (method: string) => service.hits.filter((hit) => hit.method === method && !hit.url.includes('$metadata'));

test('a create and an update send the Int64 and the Decimal as bare numbers', async () => {
  const connection = connect('never');
  const created = await connection.write('Entry', { values: { id: '9007199254740993', amount: '12345678901234567.2500', note: 'a' } });
  assert.equal(created.action, 'created');
  assert.deepEqual(created.key, { id: '9007199254740993' });
  const [post] = sent('POST');
  assert.match(post!.body, /"id":9007199254740993[,}]/);
  assert.match(post!.body, /"amount":12345678901234567\.25[,}]/);
  assert.match(String(post!.headers['content-type']), /^application\/json/);

  const updated = await connection.write('Entry', { values: { id: '9007199254740993', amount: '-98765432109876543.21', note: 'b' } });
  assert.equal(updated.action, 'updated');
  const [patch] = sent('PATCH');
  assert.match(patch!.url, /^\/svc\/Entries\(9007199254740993\)$/);
  assert.match(patch!.body, /"amount":-98765432109876543\.21[,}]/);
  assert.doesNotMatch(patch!.body, /"\d{16,}/);
});

test('the requests of a JSON $batch carry them bare too', async () => {
  const connection = connect('json');
  const results = await connection.writeMany('Entry', [
    { values: { id: '9007199254740995', amount: '1.5', note: 'c' } },
    { values: { id: '-9007199254740997', amount: '12345678901234567.25', note: 'd' } },
  ]);
  assert.deepEqual(
    results.map((result) => (result instanceof Error ? result.message : result.action)),
    ['created', 'created'],
  );
  const batch = sent('POST').find((hit) => hit.url.startsWith('/svc/$batch'));
  assert.ok(batch !== undefined, JSON.stringify(service.hits.map((hit) => `${hit.method} ${hit.url}`)));
  assert.match(batch.body, /"id":9007199254740995,/);
  assert.match(batch.body, /"id":-9007199254740997,/);
  assert.match(batch.body, /"amount":12345678901234567\.25[,}]/);
});

test('a complex collection written whole sends the entries it read with their Int64s bare', async () => {
  stored.set(
    '9007199254740993',
    '{"id":9007199254740993,"amount":1,"note":"a","accounts":[{"kind":"main","acct":9007199254740995,"city":"Leeds"},{"kind":"invoice","acct":9007199254740997,"city":"York"}]}',
  );
  const connection = connect('never');
  const updated = await connection.write('Entry', {
    values: { id: '9007199254740993' },
    groups: { accounts: { main: { city: 'Leeds 2' } } },
  });
  assert.equal(updated.action, 'updated');
  const [patch] = sent('PATCH');
  assert.match(patch!.body, /\{"kind":"main","acct":9007199254740995,"city":"Leeds 2"\}/);
  assert.match(patch!.body, /\{"kind":"invoice","acct":9007199254740997,"city":"York"\}/);
});
