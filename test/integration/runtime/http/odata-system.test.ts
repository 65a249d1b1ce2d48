/**
 * An `odata` System served by the runtime, through its public interface only: the quickstart (its
 * SQLite crm and erp) with a System `shop` on SAP CAP serving the conformance CRM
 * (test/support/odata-server.ts), syncs between them both ways and webhooks on `shop`.
 *
 * - The six connection routes: reads with WHERE, ORDER, LIMIT, SKIP and the total; one record; a
 *   write with a typed group column (`addresses[main].city`) and the minimal write; a free query
 *   with #FlowFilter#.
 * - A sync from OData into SQLite, and one from SQLite into OData (written with writeMany: $batch).
 * - Webhooks readWithSystem, readQueryWithSystem and saveWithSystem on the OData system.
 * - What the service refuses is a problem+json in our words, never its own.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { describeWithODataServer } from '../../../support/odata-server.js';
import { quickstartApp, type Answer, type HttpApp } from '../../../support/http-app.js';
import { CUSTOMERS } from '../../connectors/crm-fixture.js';
import { createCrm } from '../../connectors/odata/odata-crm.js';

const SHOP = `
kind: System
id: shop
name: Shop (OData)
connector: odata
connection:
  baseUrl: \${env:SHOP_ODATA_URL}
  maxPageSize: 10
objects:
  Customer:
    entitySet: Customers
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String, required: true }
      email: { type: String }
      active: { type: Boolean }
      score: { type: Integer }
      birthday: { type: Date }
    groups:
      addresses:
        navigation: addresses
        typeField: type
        types: [main, invoice]
        fields:
          street: { type: String }
          city: { type: String }
          country: { type: String }
  Account:
    entitySet: Accounts
    key: [AccountNumber]
    fields:
      AccountNumber: { type: String, required: true }
      AccountName: { type: String, required: true }
      Email: { type: String }
queries:
  customersByName:
    statement: "Customers?$select=id,name,email&$filter=score ne null and #FlowFilter#&$orderby=name"
    countStatement: "Customers/$count?$filter=score ne null and #FlowFilter#"
    columns:
      - { name: id, type: Integer }
      - { name: name, type: String }
      - { name: email, type: String }
---
kind: Sync
id: shop-customers-to-erp
source: { system: shop, object: Customer, where: "active = true AND score >= 50" }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "S-" & $string(id), "AccountName": name, "Email": email, "City": addresses.main.city }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
batchSize: 4
---
kind: Sync
id: crm-customers-to-shop
source: { system: crm, object: Customer }
target: { system: shop, object: Customer }
mapping: |
  {
    "id": id + 1000,
    "name": name,
    "email": email,
    "active": active,
    "addresses": { "main": { "city": addresses.main.city, "country": addresses.main.country } }
  }
match: { where: "id = #id#", onNoMatch: create, onMatch: update }
---
kind: Webhook
id: wh_shopReadCustomer01
action: readWithSystem
system: shop
object: Customer
search: "email = #email#"
responseSchema: { type: array }
readMapping: '{ "id": id, "name": name, "city": addresses.main.city }'
---
kind: Webhook
id: wh_shopQueryByName001
action: readQueryWithSystem
system: shop
query: customersByName
queryFilter: "startswith(name, #prefix#)"
responseSchema: { type: array }
---
kind: Webhook
id: wh_shopSaveAccount001
action: saveWithSystem
system: shop
object: Account
writeMapping: '{ "AccountNumber": AccountNumber, "AccountName": AccountName, "Email": Email }'
targetSearch: "AccountNumber = #AccountNumber#"
onNoMatch: create
onMatch: update
resultMapping: '{ "number": AccountNumber, "action": $action }'
`;

const read = (name: string, value: string | number) => ({ name, value });

function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.type, 'application/problem+json');
  assert.equal(answer.json.type, `urn:syncline:problem:${code}`, answer.text);
  if (detail) assert.match(answer.json.detail, detail);
}

await describeWithODataServer('an odata System served by the runtime', {}, (server) => {
  let app: HttpApp;
  before(async () => {
    await createCrm(server());
    app = await quickstartApp({ files: { 'shop.yaml': SHOP }, env: { SHOP_ODATA_URL: server().url } });
  });
  after(() => app?.close());

  test('RunConnectionGetData: WHERE, ORDER, LIMIT, SKIP and the total of all that match', async () => {
    const answer = await app.post('/api/RunConnectionGetData/shop/Customer', [
      read('GETDATA_WHERE', "active = true AND (startswith(name, 'A') OR score > 90)"),
      read('GETDATA_ORDER', 'name desc'),
      read('GETDATA_LIMIT', 3),
      read('GETDATA_SKIP', 1),
    ]);
    assert.equal(answer.status, 200, answer.text);
    const matching = CUSTOMERS.filter((row) => row.active === true && (row.name.startsWith('A') || (row.score ?? 0) > 90)).sort((a, b) =>
      a.name < b.name ? 1 : -1,
    );
    assert.deepEqual(
      answer.json.records.map((record: { id: number }) => record.id),
      matching.slice(1, 4).map((row) => row.id),
    );
    assert.equal(answer.json.total, matching.length);
    assert.deepEqual(answer.json.key, ['id']);
    assert.deepEqual(
      answer.json.groups.map((group: { name: string }) => group.name),
      ['addresses'],
    );
  });

  test('RunConnectionGetDataMin: a filter on a group field; GetDataObject: one record or 404', async () => {
    const answer = await app.post('/api/RunConnectionGetDataMin/shop/Customer', [read('GETDATA_WHERE', "addresses.main.city = 'London'")]);
    assert.equal(answer.status, 200, answer.text);
    assert.ok(answer.json.length > 0);
    for (const record of answer.json) assert.equal(record.addresses.main.city, 'London');
    const one = await app.get('/api/GetDataObject/shop/Customer/7');
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.record.name, "O'Brien");
    assertProblem(await app.get('/api/GetDataObject/shop/Customer/99999'), 404, 'record-not-found');
    assertProblem(await app.get(`/api/GetDataObject/shop/Account/${encodeURIComponent("x') or true or ('")}`), 404, 'record-not-found');
    assert.equal((await app.get(`/api/GetDataObject/shop/Account/${encodeURIComponent("A-'2")}`)).json.record.AccountName, 'Quote');
  });

  test('RunConnectionSetData with a typed group column, then RunConnectionSetDataMin', async () => {
    const created = await app.post('/api/RunConnectionSetData/shop/Customer', {
      columns: [
        { name: 'id', columnType: 'Integer', value: 500 },
        { name: 'name', columnType: 'String', value: 'Hedy Lamarr' },
        { name: 'addresses[main].city', columnType: 'String', value: 'Vienna' },
      ],
    });
    assert.deepEqual([created.status, created.json], [201, { action: 'created', key: { id: 500 } }]);
    const updated = await app.post('/api/RunConnectionSetData/shop/Customer', {
      columns: [
        { name: 'email', value: 'hedy@example.com' },
        { name: 'addresses[main].country', value: 'AT' },
        { name: 'addresses[invoice].city', value: 'Wien' },
      ],
      idcolumns: [{ name: 'id', columnType: 'Integer', value: 500 }],
    });
    assert.deepEqual([updated.status, updated.json], [200, { action: 'updated', key: { id: 500 } }]);
    const record = (await app.get('/api/GetDataObject/shop/Customer/500')).json.record;
    assert.equal(record.email, 'hedy@example.com');
    assert.deepEqual(record.addresses, {
      main: { street: null, city: 'Vienna', country: 'AT' },
      invoice: { street: null, city: 'Wien', country: null },
    });
    const minimal = await app.post('/api/RunConnectionSetDataMin/shop/Account', { AccountNumber: 'M-1', AccountName: 'Minimal' });
    assert.deepEqual([minimal.status, minimal.json], [201, { action: 'created', key: { AccountNumber: 'M-1' } }]);
  });

  test('RunConnectionGetQueryData: the statement with #FlowFilter#, its count, Limit and Skip', async () => {
    const answer = await app.post('/api/RunConnectionGetQueryData/shop', {
      columns: [
        { Name: 'id', ColumnType: 'Integer' },
        { Name: 'name', ColumnType: 'String' },
      ],
      Statement: 'Customers?$select=id,name&$filter=score ne null and #FlowFilter#&$orderby=id',
      CountStatement: 'Customers/$count?$filter=score ne null and #FlowFilter#',
      Limit: 2,
      Skip: 1,
    });
    assert.equal(answer.status, 200, answer.text);
    const scored = CUSTOMERS.filter((row) => row.score !== null);
    assert.deepEqual(
      answer.json.records,
      scored.slice(1, 3).map((row) => ({ id: row.id, name: row.name })),
    );
    assert.ok(answer.json.total >= scored.length);
    assertProblem(
      await app.post('/api/RunConnectionGetQueryData/shop', {
        columns: [{ Name: 'id', ColumnType: 'Integer' }],
        Statement: 'DELETE Customers(1)',
      }),
      403,
      'read-only',
    );
  });

  test('what the service refuses is answered in our words; what OData cannot say is a 422 naming it', async () => {
    const refused = await app.post('/api/RunConnectionSetData/shop/Customer', {
      columns: [
        { name: 'id', value: 501 },
        { name: 'name', value: 'Too long a country' },
        { name: 'addresses[main].country', value: 'GBRX' },
      ],
    });
    assertProblem(
      refused,
      409,
      'rejected',
      /Customer: the service refused the values \(HTTP 400\); it named Customer\.addresses\[main\]\.country/,
    );
    assert.doesNotMatch(refused.text, /GBRX|valid String|ASSERT/);
    const unsupported = await app.post('/api/RunConnectionGetDataMin/shop/Customer', [read('GETDATA_WHERE', "name LIKE 'A_a%'")]);
    assertProblem(unsupported, 422, 'unsupported', /the odata connector cannot filter by a LIKE pattern with '_'/);
  });

  test('a sync from OData into SQLite', async () => {
    const answer = await app.post('/api/ExecuteProcess/shop-customers-to-erp', { StartType: 'manual' });
    assert.equal(answer.status, 200, answer.text);
    const expected = CUSTOMERS.filter((row) => row.active === true && row.score !== null && row.score >= 50);
    assert.deepEqual(answer.json.Statistics, {
      Read: expected.length,
      Created: expected.length,
      Updated: 0,
      Skipped: 0,
      Failed: 0,
      Unchanged: 0,
    });
    const accounts = await app.erp('accounts').where('AccountNumber', 'like', 'S-%').select('AccountNumber', 'AccountName');
    assert.deepEqual(
      accounts.map((account: { AccountNumber: string }) => account.AccountNumber).sort(),
      expected.map((row) => `S-${row.id}`).sort(),
    );
  });

  test('a sync from SQLite into OData, written with $batch', async () => {
    const answer = await app.post('/api/ExecuteProcess/crm-customers-to-shop', { StartType: 'manual' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.Statistics, { Read: 6, Created: 6, Updated: 0, Skipped: 0, Failed: 0, Unchanged: 0 });
    const ada = (await app.get('/api/GetDataObject/shop/Customer/1001')).json.record;
    assert.deepEqual(
      [ada.name, ada.email, ada.active, ada.addresses.main],
      ['Ada Lovelace', 'Ada@Example.com', true, { street: null, city: 'London', country: 'GB' }],
    );
    const again = await app.post('/api/ExecuteProcess/crm-customers-to-shop', { StartType: 'manual' });
    // The shop already holds every mapped value, typed group entries included: nothing is written again.
    assert.deepEqual(again.json.Statistics, { Read: 6, Created: 0, Updated: 0, Skipped: 6, Failed: 0, Unchanged: 6 });
  });

  test('webhooks readWithSystem, readQueryWithSystem and saveWithSystem on the OData system', async () => {
    const found = await app.call('POST', '/api/webhooks/wh_shopReadCustomer01', { token: null, body: { email: 'hedy@example.com' } });
    assert.deepEqual([found.status, found.json], [200, [{ id: 500, name: 'Hedy Lamarr', city: 'Vienna' }]]);
    const injected = await app.call('POST', '/api/webhooks/wh_shopReadCustomer01', {
      token: null,
      body: { email: "x' or 1 eq 1 or name eq '" },
    });
    assert.equal(injected.status, 204);
    const queried = await app.call('POST', '/api/webhooks/wh_shopQueryByName001', { token: null, body: { prefix: 'Ada' } });
    assert.equal(queried.status, 200, queried.text);
    assert.deepEqual(
      queried.json.map((row: { name: string }) => row.name),
      CUSTOMERS.filter((row) => row.score !== null && row.name.startsWith('Ada'))
        .map((row) => row.name)
        .sort(),
    );
    const saved = await app.call('POST', '/api/webhooks/wh_shopSaveAccount001', {
      token: null,
      body: { AccountNumber: 'W-1', AccountName: 'From a webhook', Email: 'w@example.com' },
    });
    assert.deepEqual([saved.status, saved.json], [200, { number: 'W-1', action: 'created' }]);
    const resaved = await app.call('POST', '/api/webhooks/wh_shopSaveAccount001', {
      token: null,
      body: { AccountNumber: 'W-1', AccountName: 'Renamed' },
    });
    assert.deepEqual(resaved.json, { number: 'W-1', action: 'updated' });
    const account = await app.post('/api/RunConnectionGetDataMin/shop/Account', [read('GETDATA_WHERE', "AccountNumber = 'W-1'")]);
    assert.deepEqual(answerNames(account), ['Renamed']);
  });
});

function answerNames(answer: Answer): string[] {
  return (answer.json as Array<{ AccountName: string }>).map((account) => account.AccountName);
}
