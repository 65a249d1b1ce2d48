/**
 * A sync with a cursor through the queue routes: ExecuteProcess answers, and GetAction shows, the
 * cursor range each run read (Statistics.Cursor) and the records found unchanged; the ActionParam
 * FULL_RUN=true reads everything again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';

const files = {
  'incremental.yaml': `kind: Sync
id: customers-incremental
source: { system: crm, object: Customer, cursor: { field: updated_at } }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "I-" & $string(id), "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#" }
`,
};

describe('a sync with a cursor through the queue routes', () => {
  let app: HttpApp;

  before(async () => {
    app = await quickstartApp({ files });
    for (const id of [1, 2, 3, 4, 5, 6])
      await app
        .crm('customers')
        .where({ id })
        .update({ updated_at: `2024-01-0${id}T10:00:00.000Z` });
  });

  after(async () => {
    await app.close();
  });

  it('reads past the mark, shows the range in GetAction, and reads everything with FULL_RUN', async () => {
    const first = await app.post('/api/ExecuteProcess/customers-incremental', { StartType: 'manual' });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.json.Statistics, {
      Read: 6,
      Created: 6,
      Updated: 0,
      Skipped: 0,
      Failed: 0,
      Unchanged: 0,
      Cursor: { Field: 'updated_at', From: null, To: '2024-01-06T10:00:00.000Z', Mark: '2024-01-06T10:00:00.000Z' },
    });

    await app.crm('customers').where({ id: 2 }).update({ name: 'Grace Brewster Hopper', updated_at: '2024-02-01T09:30:00.000Z' });
    const second = await app.post('/api/ExecuteProcess/customers-incremental', { StartType: 'manual' });
    assert.equal(second.status, 200, second.text);
    const shown = await app.get(`/api/GetAction/${second.json.ID}`);
    assert.equal(shown.status, 200, shown.text);
    // From the mark on: customer 6 (at the mark, unchanged) and customer 2 (changed since).
    assert.deepEqual(shown.json.Statistics, {
      Read: 2,
      Created: 0,
      Updated: 1,
      Skipped: 1,
      Failed: 0,
      Unchanged: 1,
      Cursor: { Field: 'updated_at', From: '2024-01-06T10:00:00.000Z', To: '2024-02-01T09:30:00.000Z', Mark: '2024-02-01T09:30:00.000Z' },
    });
    const grace = await app.erp('accounts').where({ AccountNumber: 'I-2' }).first();
    assert.equal(grace.AccountName, 'Grace Brewster Hopper');

    const full = await app.post('/api/ExecuteProcess/customers-incremental', {
      StartType: 'manual',
      ActionParams: [{ Name: 'FULL_RUN', Value: 'true' }],
    });
    assert.equal(full.status, 200, full.text);
    assert.deepEqual(full.json.Statistics, {
      Read: 6,
      Created: 0,
      Updated: 0,
      Skipped: 6,
      Failed: 0,
      Unchanged: 6,
      Cursor: { Field: 'updated_at', From: null, To: '2024-02-01T09:30:00.000Z', Mark: '2024-02-01T09:30:00.000Z' },
    });
  });
});
