/**
 * The actions end to end through the real endpoint (POST/GET /api/webhooks/{id}) of the
 * quickstart app: the quickstart's startSync webhook with its secret, a paged query read from GET
 * parameters with the caller's filter, a direct write answering the generated id, and an injection payload through HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';

const files = {
  'action-hooks.yaml': `kind: Webhook
id: e2e-paged-query-000001
action: readQueryWithSystem
system: crm
query: activeCustomersByCity
queryFilter: "city = #city#"
paging: { filterParam: filter, defaultPageSize: 2 }
---
kind: Webhook
id: e2e-save-customer-0001
action: saveWithSystem
system: crm
object: Customer
targetSearch: "email = #email#"
resultMapping: '{ "id": id }'
`,
};

let app: HttpApp;
before(async () => {
  app = await quickstartApp({ files });
});
after(async () => {
  await app?.close();
});

test('startSync over HTTP: 200 with the Pending queue item', async () => {
  const answer = await app.call('POST', '/api/webhooks/wh_crmCustomerChanged01', {
    token: null,
    body: { id: 1, event: 'customer.updated' },
    headers: { service_webhooksecret: 'quickstart-webhook-secret' },
  });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json.Status, 'Pending');
  assert.equal(answer.json.StartType, 'AdHoc');
  const row = await app.db.knex('queue_items').where({ id: answer.json.ID }).first();
  assert.ok(row, 'the item is in the queue');
});

test('readQueryWithSystem over GET: paging and the filter property from the query string, {data, total}', async () => {
  const answer = await app.call('GET', '/api/webhooks/e2e-paged-query-000001?city=Cambridge&pageSize=1&offset=0', { token: null });
  assert.equal(answer.status, 200, answer.text);
  assert.deepEqual(answer.json, { data: [{ id: 6, name: 'Barbara Liskov', email: 'barbara@example.com', city: 'Cambridge' }], total: 1 });
  const narrowed = await app.call('GET', `/api/webhooks/e2e-paged-query-000001?city=Cambridge&filter=${encodeURIComponent('id < 6')}`, {
    token: null,
  });
  assert.deepEqual(narrowed.json, { data: [], total: 0 });
  // Without city the configured filter compares with null: nothing, never everything.
  const without = await app.call('GET', '/api/webhooks/e2e-paged-query-000001', { token: null });
  assert.deepEqual(without.json, { data: [], total: 0 });
  const bad = await app.call('GET', '/api/webhooks/e2e-paged-query-000001?pageSize=abc', { token: null });
  assert.equal(bad.status, 400);
  assert.equal(bad.type, 'application/problem+json');
  const injected = await app.call('GET', `/api/webhooks/e2e-paged-query-000001?city=${encodeURIComponent("x' OR '1'='1")}`, {
    token: null,
  });
  assert.equal(injected.status, 200, injected.text);
  assert.deepEqual(injected.json, { data: [], total: 0 });
});

test('saveWithSystem over HTTP: creates and answers the generated id; the second call updates the same record', async () => {
  const created = await app.call('POST', '/api/webhooks/e2e-save-customer-0001', {
    token: null,
    body: { name: 'Hook Hilda', email: 'hilda@example.com' },
  });
  assert.equal(created.status, 200, created.text);
  const row = await app.crm('customers').where({ email: 'hilda@example.com' }).first();
  assert.deepEqual(created.json, { id: row.id });
  const again = await app.call('POST', '/api/webhooks/e2e-save-customer-0001', {
    token: null,
    body: { name: 'Hilda H.', email: 'hilda@example.com' },
  });
  assert.deepEqual(again.json, { id: row.id });
  assert.equal((await app.crm('customers').where({ email: 'hilda@example.com' })).length, 1);
});
