/**
 * The http connector through the public interface: definitions with an `http` System (json-server
 * over the CRM fixture) served as `syncline serve` serves them, and every connection route, a sync
 * from the REST API into the quickstart's SQLite ERP and one from its SQLite CRM into the REST
 * API, the webhooks readWithSystem and saveWithSystem on it; an API that fails answered as
 * problem+json in our words, without what it said and without the secret it echoed; and
 * `syncline discover` printing objects that `syncline validate` accepts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../../../support/cli-process.js';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';
import { describeWithJsonServer } from '../../../support/json-server.js';
import { sendJson, startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';
import { CUSTOMERS } from '../crm-fixture.js';
import { crmDb, crmJsonServerOptions } from './json-server-crm.js';

const SECRET = 'sk_live_7d1e9c0a4b3f2e8d6c5b4a39281f0e7d';

const restYaml = `kind: System
id: rest
name: REST CRM (json-server)
connector: http
connection:
  baseUrl: \${env:REST_URL}
  retries: { max: 1, maxWait: 2s }
objects:
  Customer:
    list: { path: /customers }
    get: { path: "/customers/{id}" }
    create: { path: /customers }
    update: { method: PATCH, path: "/customers/{id}" }
    total: { header: X-Total-Count }
    paging: { style: offset, offsetParam: _start, limitParam: _limit, pageSize: 15 }
    filters:
      - { field: email, op: "=", param: email }
      - { field: score, op: ">=", param: score_gte }
    sort: { param: _sort, directionParam: _order, fields: [id, name] }
    key: [id]
    fields:
      id: { type: Integer, readOnly: true }
      name: { type: String, required: true }
      email: { type: String }
      active: { type: Boolean }
      score: { type: Integer }
      updated_at: { type: DateTime }
    groups:
      addresses:
        types: [main, invoice]
        fields: { street: { type: String }, city: { type: String }, zip: { type: String }, country: { type: String } }
  Account:
    list: { path: /accounts }
    get: { path: "/accounts/{AccountNumber}" }
    create: { path: /accounts }
    update: { method: PUT, path: "/accounts/{AccountNumber}" }
    paging: { style: page, pageParam: _page, sizeParam: _limit }
    filters: [{ field: AccountNumber, op: in, param: AccountNumber }]
    key: [AccountNumber]
    fields:
      AccountNumber: { type: String, required: true }
      AccountName: { type: String, required: true }
      Email: { type: String }
---
kind: System
id: broken
connector: http
connection:
  baseUrl: \${env:BROKEN_URL}
  auth: { type: bearer, token: "\${env:BROKEN_TOKEN}" }
  retries: { max: 0 }
  maxResponseBytes: 4kib
readOnly: true
limits: { statementTimeout: 300ms }
objects:
  Thing: { list: { path: /failing }, key: [id], fields: { id: { type: Integer } } }
  Slow: { list: { path: /slow }, key: [id], fields: { id: { type: Integer } } }
  Huge: { list: { path: /huge }, key: [id], fields: { id: { type: Integer } } }
  Endless:
    list: { path: /endless }
    paging: { style: offset, pageSize: 2 }
    total: { header: X-Total-Count }
    filters: [{ field: id, op: ">=", param: id_gte }]
    sort: { param: sort, fields: [id] }
    key: [id]
    fields: { id: { type: Integer } }
---
kind: Sync
id: rest-customers-to-erp
source: { system: rest, object: Customer, where: "active = true AND score >= 50", order: id asc }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "R-" & $string(id), "AccountName": name, "Email": email, "City": addresses.main.city }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
---
kind: Sync
id: crm-customers-to-rest
source: { system: crm, object: Customer }
target: { system: rest, object: Account }
mapping: '{ "AccountNumber": "C-" & $string(id), "AccountName": name, "Email": email }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
---
kind: Webhook
id: wh_restCustomerByMail1
action: readWithSystem
system: rest
object: Customer
search: "email = #email#"
firstOnly: true
responseSchema: { type: object }
readMapping: '{ "id": id, "name": name, "city": addresses.main.city }'
---
kind: Webhook
id: wh_restSaveAccount0001
action: saveWithSystem
system: rest
object: Account
targetSearch: "AccountNumber = #number#"
writeMapping: '{ "AccountNumber": number, "AccountName": name, "Email": email }'
resultMapping: '{ "number": AccountNumber, "name": AccountName }'
`;

const read = (name: string, value: string) => ({ name, value });

await describeWithJsonServer('the http connector served', crmDb, crmJsonServerOptions, (server) => {
  let app: HttpApp;
  let failing: FixtureServer;
  let endlessPages = 0;

  before(async () => {
    failing = await startFixtureServer();
    failing.route('GET', '/failing', (request, response) =>
      sendJson(response, 500, { error: `Traceback (most recent call last): auth=${String(request.headers.authorization)}` }),
    );
    failing.route('GET', '/slow', async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      if (!response.destroyed) sendJson(response, 200, []);
    });
    failing.route('GET', '/huge', (_request, response) =>
      sendJson(
        response,
        200,
        Array.from({ length: 500 }, (_, id) => ({ id })),
      ),
    );
    // Sorted, the answer comes in another order (the read fails at once); unsorted — a count of a
    // filter, by reading — it pages on and on.
    failing.route('GET', '/endless', (request, response) => {
      if (request.query.has('sort')) return sendJson(response, 200, [{ id: 2 }, { id: 1 }]);
      endlessPages += 1;
      const offset = Number(request.query.get('offset') ?? 0);
      setTimeout(() => sendJson(response, 200, [{ id: offset }, { id: offset + 1 }]), 10);
    });
    app = await quickstartApp({
      files: { 'rest.yaml': restYaml },
      env: { REST_URL: server().base, BROKEN_URL: failing.base, BROKEN_TOKEN: SECRET },
    });
  });
  after(async () => {
    await app?.close();
    await failing?.close();
  });

  describe('the six connection routes', () => {
    it('RunConnectionGetData answers the records with metadata and the total of the filter', async () => {
      const answer = await app.post('/api/RunConnectionGetData/rest/Customer', [
        read('GETDATA_WHERE', 'score >= 50'),
        read('GETDATA_ORDER', 'name desc'),
        read('GETDATA_LIMIT', '3'),
        read('GETDATA_SKIP', '1'),
      ]);
      assert.equal(answer.status, 200, answer.text);
      const expected = CUSTOMERS.filter((row) => row.score !== null && row.score >= 50)
        .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
        .map((row) => row.id);
      assert.equal(answer.json.total, expected.length);
      assert.deepEqual(
        answer.json.records.map((record: { id: number }) => record.id),
        expected.slice(1, 4),
      );
      assert.deepEqual(
        answer.json.groups.map((group: { name: string }) => group.name),
        ['addresses'],
      );
    });

    it('RunConnectionGetDataMin and GetDataObject read by id; none is 404', async () => {
      const min = await app.post('/api/RunConnectionGetDataMin/rest/Customer', [read('GETDATA_ID', '7')]);
      assert.equal(min.status, 200, min.text);
      assert.deepEqual(
        min.json.map((record: { id: number }) => record.id),
        [7],
      );
      const one = await app.get('/api/GetDataObject/rest/Account/A-1');
      assert.equal(one.status, 200, one.text);
      assert.deepEqual(one.json.record, { AccountNumber: 'A-1', AccountName: 'First', Email: 'first@example.com' });
      const none = await app.get('/api/GetDataObject/rest/Customer/999999');
      assert.equal(none.status, 404, none.text);
    });

    it('RunConnectionGetQueryData is 422, naming the capability the http connector lacks', async () => {
      const answer = await app.post('/api/RunConnectionGetQueryData/rest', {
        Statement: 'anything',
        columns: [{ Name: 'n', ColumnType: 'Integer' }],
      });
      assert.equal(answer.status, 422, answer.text);
      assert.equal(answer.type, 'application/problem+json');
      assert.match(answer.json.detail, /readOnlyQuery .* which the http connector of system rest does not have/);
    });

    it('RunConnectionSetData creates and updates with typed group columns; the Min form writes flat records', async () => {
      const created = await app.post('/api/RunConnectionSetData/rest/Customer', {
        columns: [
          { name: 'name', value: 'Hedy Lamarr' },
          { name: 'email', value: 'hedy@example.com' },
          { name: 'addresses[main].city', value: 'Vienna' },
        ],
      });
      assert.equal(created.status, 201, created.text);
      const id = created.json.key.id as number;
      const updated = await app.post('/api/RunConnectionSetData/rest/Customer', {
        columns: [{ name: 'addresses[invoice].city', value: 'Wien' }],
        idcolumns: [{ name: 'id', value: id }],
      });
      assert.deepEqual([updated.status, updated.json], [200, { action: 'updated', key: { id } }]);
      const stored = await server().get(`/customers/${id}`);
      assert.deepEqual(stored.addresses, { main: { city: 'Vienna' }, invoice: { city: 'Wien' } });
      const min = await app.post('/api/RunConnectionSetDataMin/rest/Account', { AccountNumber: 'M-1', AccountName: 'Minimal' });
      assert.deepEqual([min.status, min.json], [201, { action: 'created', key: { AccountNumber: 'M-1' } }]);
      assert.equal((await server().get('/accounts/M-1')).AccountName, 'Minimal');
    });
  });

  describe('syncs', () => {
    it('from the REST API into SQLite', async () => {
      const answer = await app.post('/api/ExecuteProcess/rest-customers-to-erp', { StartType: 'manual' });
      assert.equal(answer.status, 200, answer.text);
      const selected = CUSTOMERS.filter((row) => row.active === true && row.score !== null && row.score >= 50);
      assert.equal(answer.json.Status, 'Complete', JSON.stringify(answer.json.Errors));
      assert.equal(answer.json.Statistics.Created, selected.length);
      const rows = await app
        .erp('accounts')
        .where('AccountNumber', 'like', 'R-%')
        .orderBy('AccountNumber')
        .select('AccountNumber', 'AccountName');
      assert.deepEqual(rows.map((row: { AccountName: string }) => row.AccountName).sort(), selected.map((row) => row.name).sort());
      const again = await app.post('/api/ExecuteProcess/rest-customers-to-erp', { StartType: 'manual' });
      // A second run matches what the first created, which holds its values already: no writes.
      assert.equal(again.json.Statistics.Created, 0);
      assert.equal(again.json.Statistics.Unchanged, selected.length, 'a second run matches what the first created');
    });

    it('from SQLite into the REST API', async () => {
      const customers = await app.crm('customers').select('id', 'name');
      const answer = await app.post('/api/ExecuteProcess/crm-customers-to-rest', { StartType: 'manual' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.Status, 'Complete', JSON.stringify(answer.json.Errors));
      assert.equal(answer.json.Statistics.Created, customers.length);
      const accounts = (await server().get('/accounts')) as Array<{ AccountNumber: string; AccountName: string }>;
      for (const customer of customers) {
        assert.equal(accounts.find((account) => account.AccountNumber === `C-${customer.id}`)?.AccountName, customer.name);
      }
      const again = await app.post('/api/ExecuteProcess/crm-customers-to-rest', { StartType: 'manual' });
      assert.equal(again.json.Statistics.Created, 0);
      assert.equal(again.json.Statistics.Unchanged, customers.length, 'a second run finds every account, unchanged');
      assert.equal(((await server().get('/accounts')) as unknown[]).length, accounts.length, 'nothing was created twice');
    });
  });

  describe('webhooks on the REST system', () => {
    it('readWithSystem finds the record by a search', async () => {
      const customer = CUSTOMERS.find((row) => row.id === 2)!;
      const answer = await app.call('GET', `/api/webhooks/wh_restCustomerByMail1?email=${encodeURIComponent(customer.email!)}`, {
        token: null,
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, { id: 2, name: customer.name, city: 'Cambridge' });
    });

    it('saveWithSystem creates, then updates by the target search', async () => {
      const call = (body: unknown) => app.call('POST', '/api/webhooks/wh_restSaveAccount0001', { body, token: null });
      const created = await call({ number: 'W-1', name: 'Web Shop', email: 'shop@example.com' });
      assert.equal(created.status, 200, created.text);
      assert.deepEqual(created.json, { number: 'W-1', name: 'Web Shop' });
      const updated = await call({ number: 'W-1', name: 'Web Shop Ltd', email: 'shop@example.com' });
      assert.deepEqual(updated.json, { number: 'W-1', name: 'Web Shop Ltd' });
      assert.equal((await server().get('/accounts/W-1')).AccountName, 'Web Shop Ltd');
    });
  });

  it('an API that fails is answered as problem+json in our words, without its text or our secret', async () => {
    const answer = await app.post('/api/RunConnectionGetDataMin/broken/Thing', []);
    assert.equal(answer.status, 503, answer.text);
    assert.equal(answer.type, 'application/problem+json');
    assert.match(answer.json.detail, /system 'broken' failed GET \/failing \(HTTP 500\)/);
    assert.doesNotMatch(answer.text, /Traceback/);
    assert.doesNotMatch(answer.text, new RegExp(SECRET));
    assert.doesNotMatch(JSON.stringify(app.logs), new RegExp(SECRET), 'nor in the log');
  });

  it('RunConnectionGetData whose read fails stops its count too, which would page on for ever', async () => {
    const answer = await app.post('/api/RunConnectionGetData/broken/Endless', [
      read('GETDATA_WHERE', 'id >= 0'),
      read('GETDATA_ORDER', 'id asc'),
    ]);
    assert.equal(answer.json.type, 'urn:syncline:problem:definition-mismatch', answer.text);
    const atAnswer = endlessPages;
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The page asked for as the answer went out may still be fetched; none after it.
    assert.ok(endlessPages <= atAnswer + 1, `the count went on: ${atAnswer} pages at the answer, ${endlessPages} half a second later`);
  });

  it('a request past limits.statementTimeout is 504, an answer over maxResponseBytes 422', async () => {
    const slow = await app.post('/api/RunConnectionGetDataMin/broken/Slow', []);
    assert.equal(slow.status, 504, slow.text);
    assert.equal(slow.json.type, 'urn:syncline:problem:statement-timeout');
    const huge = await app.post('/api/RunConnectionGetDataMin/broken/Huge', []);
    assert.equal(huge.status, 422, huge.text);
    assert.equal(huge.json.type, 'urn:syncline:problem:result-too-large');
    assert.match(huge.json.detail, /maxResponseBytes/);
  });

  it('syncline discover prints objects that syncline validate accepts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'syncline-http-discover-'));
    try {
      const header = `kind: System\nid: api\nconnector: http\nconnection: { baseUrl: "${server().base}", discover: [/customers, /accounts] }\n`;
      writeFileSync(join(dir, 'system.yaml'), `${header}objects: {}\n`);
      const run = await runCli(['discover', 'api', '--definitions', dir]);
      assert.equal(run.code, 0, run.stderr);
      const { objects } = parse(run.stdout) as {
        objects: Record<string, { list: unknown; key?: string[]; fields: Record<string, unknown> }>;
      };
      assert.deepEqual(Object.keys(objects), ['customers', 'accounts']);
      assert.deepEqual(objects.customers!.list, { path: '/customers' });
      assert.deepEqual(objects.customers!.key, ['id']);
      assert.match(run.stdout, /# sampled from \d+ record\(s\) of GET \/customers/);
      const pasted = mkdtempSync(join(tmpdir(), 'syncline-http-pasted-'));
      try {
        // As discover says: accounts have no id, so the key is named before writing.
        const objectsText = run.stdout
          .slice(run.stdout.indexOf('objects:\n'))
          .replace(/(\n {2}accounts:\n)/, '$1    key: [AccountNumber]\n    readOnly: true\n');
        writeFileSync(join(pasted, 'system.yaml'), `${header}${objectsText}`);
        const validate = await runCli(['validate', pasted]);
        assert.equal(validate.code, 0, validate.stdout + validate.stderr);
      } finally {
        rmSync(pasted, { recursive: true, force: true });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
