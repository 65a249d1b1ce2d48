/**
 * Sync cases of `syncline test`, run by runSyncCase against the quickstart and against systems
 * defined as PostgreSQL, OData, REST and CSV files that nothing answers for: fixture rows in,
 * one run, statistics, errors and rows compared — and every failure at the line that states the
 * expectation.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { runSyncCase } from '../../../../runtime/testing/cases/sync-case.js';
import { failedPaths, failuresOf, fixtureDirectory, loadSnapshot, quickstartDirectory, run, syncCase } from './case-support.js';

const customers = [
  { id: 1, name: 'Ada Lovelace', email: 'Ada@Example.com', active: true, addresses: { main: { city: 'London', country: 'GB' } } },
  { id: 2, name: 'Grace Hopper', email: 'grace@example.com', active: true },
  { id: 3, name: 'Alan Turing', email: 'alan@example.com', active: false },
  { id: 5, name: 'Edsger Dijkstra', email: '', active: true },
];

describe('a sync case on the quickstart', () => {
  let snapshot: Snapshot;
  before(async () => {
    snapshot = await loadSnapshot(quickstartDirectory);
  });

  test('updates the account that matches and creates the one that does not', async () => {
    const testCase = syncCase({
      sync: 'crm-customers-to-erp',
      systems: {
        crm: { Customer: customers },
        erp: { Account: [{ AccountNumber: 'C-1', AccountName: 'Old name', Email: 'old@example.com' }] },
      },
      expect: {
        statistics: { read: 3, created: 1, updated: 1, skipped: 1, failed: 0 },
        errors: [],
        systems: {
          erp: {
            Account: [
              { AccountNumber: 'C-1', AccountName: 'Ada Lovelace', Email: 'ada@example.com', City: 'London', Country: 'GB' },
              { AccountNumber: 'C-2', AccountName: 'Grace Hopper', City: null },
            ],
          },
        },
      },
    });
    const outcome = await run(runSyncCase, snapshot, testCase);
    assert.deepEqual(failuresOf(outcome, testCase), []);
  });

  test('passes params and a WhereClause to the run', async () => {
    const testCase = syncCase({
      sync: 'crm-customers-to-erp',
      params: { id: 2 },
      where: "name <> 'nobody'",
      systems: { crm: { Customer: customers } },
      expect: { statistics: { read: 1, created: 1 }, systems: { erp: { Account: [{ AccountNumber: 'C-2' }] } } },
    });
    assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, testCase), testCase), []);
  });

  test('says which expectation failed, with the expected and actual values', async () => {
    const testCase = syncCase({
      sync: 'crm-customers-to-erp',
      systems: { crm: { Customer: customers } },
      expect: {
        statistics: { created: 3, skipped: 1 },
        systems: {
          erp: {
            Account: [
              { AccountNumber: 'C-1', AccountName: 'Ada Byron' },
              { AccountNumber: 'C-9', AccountName: 'Nobody' },
            ],
          },
        },
      },
    });
    const outcome = await run(runSyncCase, snapshot, testCase);
    assert.deepEqual(failedPaths(outcome, testCase), [
      'expect.statistics.created',
      'expect.systems.erp.Account.1',
      'expect.systems.erp.Account.0.AccountName',
    ]);
    const [created, missing, name] = outcome.failures;
    assert.equal(created!.expected, 3);
    assert.equal(created!.actual, 2);
    assert.match(missing!.message, /erp\/Account has no row with AccountNumber = "C-9"/);
    assert.deepEqual([name!.expected, name!.actual], ['Ada Byron', 'Ada Lovelace']);
  });

  test('a row count that differs fails at the object, naming the rows not expected', async () => {
    const testCase = syncCase({
      sync: 'crm-customers-to-erp',
      systems: { crm: { Customer: customers } },
      expect: { systems: { erp: { Account: [{ AccountNumber: 'C-1' }] } } },
    });
    const outcome = await run(runSyncCase, snapshot, testCase);
    assert.deepEqual(failedPaths(outcome, testCase), ['expect.systems.erp.Account']);
    assert.match(outcome.failures[0]!.message, /has 2 row\(s\), expected 1; not expected: AccountNumber = "C-2"/);
  });

  test('names an unknown sync, a WhereClause that does not fit and fixtures that do not load, at their lines', async () => {
    const unknown = syncCase({ sync: 'no-such-sync', expect: {} });
    const outcome = await run(runSyncCase, snapshot, unknown);
    assert.deepEqual(failedPaths(outcome, unknown), ['sync']);
    assert.match(outcome.failures[0]!.message, /no sync 'no-such-sync'; the syncs are crm-customers-to-erp/);

    const where = syncCase({ sync: 'crm-customers-to-erp', where: 'nosuchfield = 1', expect: {} });
    assert.deepEqual(failedPaths(await run(runSyncCase, snapshot, where), where), ['where']);

    const fixtures = syncCase({
      sync: 'crm-customers-to-erp',
      systems: {
        crm: {
          Customer: [
            { id: 1, name: 'A' },
            { id: 'one', name: 'B' },
            { id: 1, name: 'C' },
          ],
          Client: [],
        },
        hr: { Person: [] },
      },
      expect: {},
    });
    const loaded = await run(runSyncCase, snapshot, fixtures);
    assert.deepEqual(failuresOf(loaded, fixtures).sort(), [
      "systems.crm.Client: system 'crm' has no object 'Client'; its objects are Customer",
      "systems.crm.Customer.1: fixture row 2 of crm/Customer cannot be loaded: Customer.id: expected a whole number, got 'one'",
      'systems.crm.Customer.2: fixture row 3 of crm/Customer has the key of row 1 (id = 1); a key names one record',
      "systems.hr: there is no system 'hr'; the systems are crm, erp",
    ]);
  });
});

describe('a sync case on systems nothing answers for', () => {
  let snapshot: Snapshot;
  before(async () => {
    snapshot = await loadSnapshot(fixtureDirectory);
  });

  const orders = [
    { id: 1, number: 'O-1', customer: 'ada', total: 12.5, status: 'open', placed_at: '2024-03-01T10:00:00Z' },
    { id: 2, number: 'O-2', customer: 'a customer with a long name', total: 30, status: 'open' },
    { id: 3, number: 'O-3', customer: 'bob', total: 0, status: 'open' },
    { id: 4, number: 'O-4', customer: 'cy', total: 99, status: 'draft' },
  ];

  test('PostgreSQL → REST: a record the target refuses is an error of the run, matched by source id and text', async () => {
    const testCase = syncCase({
      sync: 'orders-to-ledger',
      systems: { shop: { Order: orders }, ledger: { Entry: [{ ref: 'O-1', amount: 1, booked: true }] } },
      expect: {
        statistics: { read: 3, updated: 1, skipped: 1, failed: 1 },
        errors: [{ sourceId: '2', message: 'longer than the 10 characters allowed' }],
        systems: { ledger: { Entry: [{ ref: 'O-1', amount: 12.5, customer: 'ada', booked: false }] } },
      },
    });
    assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, testCase), testCase), []);
  });

  test('errors a case does not expect fail it, where the case names the sync or lists its errors', async () => {
    const silent = syncCase({ sync: 'orders-to-ledger', systems: { shop: { Order: orders } }, expect: {} });
    const outcome = await run(runSyncCase, snapshot, silent);
    assert.deepEqual(failedPaths(outcome, silent), ['sync']);
    assert.match(outcome.failures[0]!.message, /1 error\(s\) the case does not expect .*\[2\] Entry\.customer: longer than/);

    const counted = syncCase({ sync: 'orders-to-ledger', systems: { shop: { Order: orders } }, expect: { statistics: { failed: 1 } } });
    assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, counted), counted), []);

    const listed = syncCase({
      sync: 'orders-to-ledger',
      systems: { shop: { Order: orders } },
      expect: { errors: [{ sourceId: '3', message: 'longer than' }] },
    });
    const mismatch = await run(runSyncCase, snapshot, listed);
    assert.deepEqual(failedPaths(mismatch, listed), ['expect.errors.0']);
    assert.deepEqual(mismatch.failures[0]!.actual, ['[2] Entry.customer: longer than the 10 characters allowed']);

    const extra = syncCase({ sync: 'orders-to-ledger', systems: { shop: { Order: orders } }, expect: { errors: [] } });
    assert.deepEqual(failedPaths(await run(runSyncCase, snapshot, extra), extra), ['expect.errors']);
  });

  test('OData → PostgreSQL with typed groups on both sides, params and a match that updates', async () => {
    const testCase = syncCase({
      sync: 'contacts-to-customers',
      params: { vip: 'yes' },
      systems: {
        crm: {
          Contact: [
            {
              ContactId: 'c1',
              Name: 'Ada',
              Email: 'ADA@example.com',
              Active: true,
              addresses: { home: { City: 'London', Country: 'GB' } },
            },
            { ContactId: 'c2', Name: 'Bob', Email: 'bob@example.com', Active: true, Since: '2020-02-29' },
            { ContactId: 'c3', Name: 'Cy', Email: 'cy@example.com', Active: false },
          ],
        },
        shop: {
          Customer: [{ email: 'bob@example.com', name: 'Robert', vip: false, addresses: { shipping: { city: 'Leeds' } } }],
        },
      },
      expect: {
        statistics: { read: 2, created: 1, updated: 1 },
        systems: {
          shop: {
            Customer: [
              {
                email: 'ada@example.com',
                name: 'Ada',
                vip: true,
                addresses: { billing: { city: 'London', country: 'GB' }, shipping: null },
              },
              { email: 'bob@example.com', name: 'Bob', vip: 'true', addresses: { billing: { city: null }, shipping: { city: 'Leeds' } } },
            ],
          },
        },
      },
    });
    assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, testCase), testCase), []);
  });

  test('a group entry that differs fails at its field', async () => {
    const testCase = syncCase({
      sync: 'contacts-to-customers',
      systems: {
        crm: {
          Contact: [{ ContactId: 'c1', Name: 'Ada', Email: 'ada@example.com', Active: true, addresses: { home: { City: 'London' } } }],
        },
      },
      expect: { systems: { shop: { Customer: [{ email: 'ada@example.com', addresses: { billing: { city: 'Paris' } } }] } } },
    });
    const outcome = await run(runSyncCase, snapshot, testCase);
    assert.deepEqual(failedPaths(outcome, testCase), ['expect.systems.shop.Customer.0.addresses.billing.city']);
    assert.deepEqual([outcome.failures[0]!.expected, outcome.failures[0]!.actual], ['Paris', 'London']);
  });

  test('files: the sync reads the fixture rows, never the real file', async () => {
    const testCase = syncCase({
      sync: 'payments-to-ledger',
      systems: { bank: { Payment: [{ ref: 'P-1', amount: '10.50' }] } },
      expect: { statistics: { read: 1, created: 1 }, systems: { ledger: { Entry: [{ ref: 'P-1', amount: 10.5, booked: true }] } } },
    });
    assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, testCase), testCase), []);
  });

  test('what no scratch database can stand in for fails the case at its sync, saying why', async () => {
    const groups = syncCase({ sync: 'memberships-to-ledger', expect: {} });
    const refused = await run(runSyncCase, snapshot, groups);
    assert.deepEqual(failedPaths(refused, groups), ['sync']);
    assert.match(
      refused.failures[0]!.message,
      /sync memberships-to-ledger \(its source\) uses object Membership of system crm, which no scratch SQLite database can stand in for: it has typed groups \(notes\) and a key of 2 fields/,
    );

    const query = syncCase({ sync: 'recent-contacts-to-customers', expect: {} });
    const language = await run(runSyncCase, snapshot, query);
    assert.deepEqual(failedPaths(language, query), ['sync']);
    assert.match(language.failures[0]!.message, /query recentContacts of system crm, .* a query in the odata connector's own language/);

    const fixture = syncCase({ sync: 'orders-to-ledger', systems: { crm: { Membership: [] } }, expect: {} });
    const named = await run(runSyncCase, snapshot, fixture);
    assert.deepEqual(failedPaths(named, fixture), ['systems.crm.Membership']);
  });
});
