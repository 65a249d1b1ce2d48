/**
 * Webhook cases of `syncline test`, run by runWebhookCase: the call goes through executeWebhook
 * for real (secret, signature, schema, condition, action), queued syncs run to their end against
 * the scratch databases, and status, body, ticker and rows are compared — against the quickstart
 * and against systems defined as PostgreSQL, OData and REST at addresses nothing answers on.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { runWebhookCase } from '../../../../runtime/testing/cases/webhook-case.js';
import { failedPaths, failuresOf, fixtureDirectory, loadSnapshot, quickstartDirectory, run, webhookCase } from './case-support.js';

const quickstartHook = 'wh_crmCustomerChanged01';
const ada = { id: 1, name: 'Ada Lovelace', email: 'Ada@Example.com', active: true, addresses: { main: { city: 'London', country: 'GB' } } };

describe('a webhook case on the quickstart', () => {
  let snapshot: Snapshot;
  before(async () => {
    snapshot = await loadSnapshot(quickstartDirectory);
  });

  test('the call queues the sync, which runs to its end before the rows are compared', async () => {
    const testCase = webhookCase({
      webhook: quickstartHook,
      request: { body: { id: 1, event: 'customer.updated' } },
      systems: { crm: { Customer: [ada, { id: 2, name: 'Grace Hopper', email: 'grace@example.com', active: true }] } },
      expect: {
        status: 200,
        body: { ProcessId: 'crm-customers-to-erp', StartType: 'AdHoc', Status: 'Pending' },
        ticker: [
          'condition: the execution condition is true',
          'queued: queue item',
          'done: answered 200',
          'run: crm-customers-to-erp Complete (read 1, created 1, updated 0, skipped 0, failed 0)',
        ],
        systems: { erp: { Account: [{ AccountNumber: 'C-1', AccountName: 'Ada Lovelace', Email: 'ada@example.com', City: 'London' }] } },
      },
    });
    const outcome = await run(runWebhookCase, snapshot, testCase);
    assert.deepEqual(failuresOf(outcome, testCase), []);
    assert.ok(
      outcome.ticker?.some((line) => line.startsWith('start: POST call of webhook wh_crmCustomerChanged01')),
      String(outcome.ticker),
    );
  });

  test('a false condition answers 204 and starts nothing', async () => {
    const testCase = webhookCase({
      webhook: quickstartHook,
      request: { body: { id: 1, event: 'customer.deleted' } },
      systems: { crm: { Customer: [ada] } },
      expect: { status: 204, ticker: ['the execution condition is false'], systems: { erp: { Account: [] } } },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, testCase), testCase), []);
  });

  test('a header given empty is not sent: the call without the secret is refused', async () => {
    const refused = webhookCase({
      webhook: quickstartHook,
      request: { headers: { Authorization: '' }, body: { id: 1, event: 'customer.updated' } },
      expect: { status: 403, body: { title: 'Webhook secret missing or wrong', status: 403 } },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, refused), refused), []);

    const unexpected = webhookCase({
      webhook: quickstartHook,
      request: { headers: { service_webhooksecret: 'a guess' }, body: { id: 1, event: 'customer.updated' } },
      expect: {},
    });
    const outcome = await run(runWebhookCase, snapshot, unexpected);
    assert.deepEqual(failedPaths(outcome, unexpected), ['webhook']);
    assert.match(
      outcome.failures[0]!.message,
      /answered 403 \(Send the webhook secret .*\); a case that expects a refusal says so in expect.status/,
    );
  });

  test('the request schema and the body reader judge the case request as a real one', async () => {
    const invalid = webhookCase({
      webhook: quickstartHook,
      request: { body: { id: 'one', event: 'customer.updated' } },
      expect: { status: 400, body: { errors: [{ path: '/id', message: 'must be integer' }] } },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, invalid), invalid), []);

    const broken = webhookCase({
      webhook: quickstartHook,
      request: { headers: { 'Content-Type': 'application/json' }, body: '{"id": 1,' },
      expect: { status: 400, ticker: ['error: The body is not valid JSON'] },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, broken), broken), []);
  });

  test('form fields and a GET query reach the webhook as a sender would send them', async () => {
    const form = webhookCase({
      webhook: quickstartHook,
      request: { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: { id: 1, event: 'customer.updated' } },
      systems: { crm: { Customer: [ada] } },
      expect: { status: 200, systems: { erp: { Account: [{ AccountNumber: 'C-1' }] } } },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, form), form), []);
    const get = webhookCase({
      webhook: quickstartHook,
      request: { method: 'get', query: { id: '1', event: 'customer.deleted' } },
      expect: { status: 204, ticker: ['start: GET call of webhook', 'the execution condition is false'] },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, get), get), []);
  });

  test('each expectation that fails points at its own line, with the values for a diff', async () => {
    const testCase = webhookCase({
      webhook: quickstartHook,
      request: { body: { id: 1, event: 'customer.updated' } },
      systems: { crm: { Customer: [ada] } },
      expect: {
        status: 201,
        body: { ProcessId: 'crm-customers-to-erp', Status: 'Complete' },
        ticker: ['done: answered 200', 'queued'],
        systems: { erp: { Account: [{ AccountNumber: 'C-1', City: 'Paris' }, { AccountNumber: 'C-7' }] } },
      },
    });
    const outcome = await run(runWebhookCase, snapshot, testCase);
    assert.deepEqual(failedPaths(outcome, testCase), [
      'expect.status',
      'expect.body.Status',
      'expect.ticker.1',
      'expect.systems.erp.Account.1',
      'expect.systems.erp.Account.0.City',
      'expect.systems.erp.Account',
    ]);
    const byPath = new Map(outcome.failures.map((failure) => [testCase.pathAt(failure.at), failure]));
    assert.deepEqual([byPath.get('expect.status')!.expected, byPath.get('expect.status')!.actual], [201, 200]);
    assert.deepEqual([byPath.get('expect.body.Status')!.expected, byPath.get('expect.body.Status')!.actual], ['Complete', 'Pending']);
    assert.match(byPath.get('expect.ticker.1')!.message, /comes before the line matching ticker line 1/);
    assert.deepEqual(
      [byPath.get('expect.systems.erp.Account.0.City')!.expected, byPath.get('expect.systems.erp.Account.0.City')!.actual],
      ['Paris', 'London'],
    );
  });

  test("an unknown webhook fails at the case's webhook line", async () => {
    const testCase = webhookCase({ webhook: 'wh_noSuchWebhook0000', request: {}, expect: {} });
    const outcome = await run(runWebhookCase, snapshot, testCase);
    assert.deepEqual(failedPaths(outcome, testCase), ['webhook']);
    assert.match(outcome.failures[0]!.message, /no webhook 'wh_noSuchWebhook0000'; the webhooks are wh_crmCustomerChanged01/);
  });
});

describe('a webhook case on systems nothing answers for', () => {
  let snapshot: Snapshot;
  before(async () => {
    snapshot = await loadSnapshot(fixtureDirectory);
  });

  test('a GitHub-signed call is signed by the case; the write lands in the PostgreSQL stand-in, its generated id answered', async () => {
    const testCase = webhookCase({
      webhook: 'wh_signedOrderIntake01',
      request: { body: { number: 'O-7', customer: 'ada', total: 12.5 } },
      systems: { shop: { Order: [{ id: 41, number: 'O-6', status: 'open' }] } },
      expect: {
        status: 200,
        body: { id: 42, number: 'O-7', status: 'open' },
        ticker: ['saveWithSystem: writing shop/Order'],
        systems: {
          shop: {
            Order: [
              { id: 41, number: 'O-6' },
              { number: 'O-7', customer: 'ada', total: '12.50', status: 'open' },
            ],
          },
        },
      },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, testCase), testCase), []);
  });

  test('a signature the case writes itself is sent as written: a wrong one is refused, an empty one is missing', async () => {
    const wrong = webhookCase({
      webhook: 'wh_signedOrderIntake01',
      request: { headers: { 'X-Hub-Signature-256': 'sha256=00' }, body: { number: 'O-7' } },
      expect: {
        status: 401,
        body: { detail: 'The github signature is refused: the signature does not match the body.' },
        systems: { shop: { Order: [] } },
      },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, wrong), wrong), []);
    const missing = webhookCase({
      webhook: 'wh_signedOrderIntake01',
      request: { headers: { 'x-hub-signature-256': '' }, body: { number: 'O-7' } },
      expect: { status: 401, ticker: ['the x-hub-signature-256 header is missing'] },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, missing), missing), []);
  });

  test('a call signed with a timestamp queues the ledger sync, which writes to the REST stand-in', async () => {
    const testCase = webhookCase({
      webhook: 'wh_orderChangedHmac001',
      request: { body: { event: 'orders.changed' } },
      systems: {
        shop: { Order: [{ id: 1, number: 'O-1', customer: 'ada', total: 12.5, status: 'open' }] },
        ledger: {
          Entry: [
            { ref: 'O-1', amount: 1 },
            { ref: 'X-9', amount: 5 },
          ],
        },
      },
      expect: {
        status: 200,
        ticker: ['run: orders-to-ledger Complete (read 1, created 0, updated 1'],
        systems: {
          ledger: {
            Entry: [
              { ref: 'O-1', amount: 12.5, booked: false },
              { ref: 'X-9', amount: 5 },
            ],
          },
        },
      },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, testCase), testCase), []);
  });

  test('a queued run with a failed record fails the case, unless the ticker expects it', async () => {
    const orders = { shop: { Order: [{ id: 1, number: 'O-1', customer: 'a customer with a long name', total: 3, status: 'open' }] } };
    const silent = webhookCase({ webhook: 'wh_orderChangedHmac001', request: { body: {} }, systems: orders, expect: { status: 200 } });
    const outcome = await run(runWebhookCase, snapshot, silent);
    assert.deepEqual(failedPaths(outcome, silent), ['webhook']);
    assert.match(
      outcome.failures[0]!.message,
      /did not end cleanly: run: orders-to-ledger Complete .*failed 1\); run error: \[1\] Entry\.customer: longer than/,
    );

    const expected = webhookCase({
      webhook: 'wh_orderChangedHmac001',
      request: { body: {} },
      systems: orders,
      expect: {
        status: 200,
        ticker: ['run error: [1] Entry.customer: longer than the 10 characters allowed'],
        systems: { ledger: { Entry: [] } },
      },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, expected), expected), []);
  });

  test('the OData contact call: secret, condition and params reach the sync, typed groups land in PostgreSQL', async () => {
    const testCase = webhookCase({
      webhook: 'wh_contactChanged00001',
      request: { body: { id: 'c1', event: 'updated', vip: 'yes' } },
      systems: {
        crm: {
          Contact: [
            {
              ContactId: 'c1',
              Name: 'Ada',
              Email: 'Ada@example.com',
              Active: true,
              addresses: { home: { City: 'London', Country: 'GB' } },
            },
            { ContactId: 'c2', Name: 'Bob', Email: 'bob@example.com', Active: true },
          ],
        },
      },
      expect: {
        status: 200,
        systems: {
          shop: { Customer: [{ email: 'ada@example.com', vip: true, addresses: { billing: { city: 'London', country: 'GB' } } }] },
        },
      },
    });
    assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, testCase), testCase), []);
  });
});
