/**
 * A flow run through ExecuteProcess, end to end: records a webhook would have stored wait in the
 * record store of the flow's first step; the run writes them to the ERP, runs the second step,
 * answers the summed statistics, and deletes the entries it used — and keeps them when it fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeRecords } from '../../../../runtime/record-store/store-record.js';
import { readRecords } from '../../../../runtime/record-store/read-records.js';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';
import { flowClientToken, queueFiles } from '../../../support/queue-fixtures.js';

describe('a flow through ExecuteProcess', () => {
  let app: HttpApp;

  before(async () => {
    app = await quickstartApp({ files: queueFiles, env: { FLOW_CLIENT_TOKEN: flowClientToken } });
  });

  after(async () => {
    await app.close();
  });

  it('runs its steps in order, sums their statistics and empties the record store it read', async () => {
    await storeRecords(app.db, 'erp-inbox', [
      { id: 'IN-1', name: 'Inbox One' },
      { id: 'IN-2', name: 'Inbox Two' },
    ]);
    const answer = await app.post('/api/ExecuteProcess/inbox-then-customers', { StartType: 'manual' });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.Status, 'Complete', answer.text);
    assert.equal(answer.json.ProcessId, 'inbox-then-customers');
    // Step 1: two stored records created; step 2: the quickstart sync (5 read, 3 created, 1 updated, 1 skipped).
    assert.deepEqual(answer.json.Statistics, { Read: 7, Created: 5, Updated: 1, Skipped: 1, Failed: 0, Unchanged: 0 });
    const accounts = (await app
      .erp('accounts')
      .whereIn('AccountNumber', ['IN-1', 'IN-2'])
      .orderBy('AccountNumber')
      .select('AccountNumber', 'AccountName')) as unknown[];
    assert.deepEqual(accounts, [
      { AccountNumber: 'IN-1', AccountName: 'Inbox One' },
      { AccountNumber: 'IN-2', AccountName: 'Inbox Two' },
    ]);
    assert.equal((await readRecords(app.db, { syncId: 'erp-inbox', limit: 10 })).records.length, 0, 'the used entries are gone');
  });

  it('keeps the stored records when a step fails', async () => {
    // AccountName is required: this record fails in step 1, and the flow keeps it for another try.
    await storeRecords(app.db, 'erp-inbox', [{ id: 'IN-3' }]);
    const answer = await app.post('/api/ExecuteProcess/inbox-then-customers', { StartType: 'manual' });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.Statistics.Failed, 1, answer.text);
    assert.ok(
      answer.json.Errors.some((error: { SourceId?: string }) => typeof error.SourceId === 'string'),
      answer.text,
    );
    const left = await readRecords(app.db, { syncId: 'erp-inbox', limit: 10 });
    assert.deepEqual(
      left.records.map((stored) => stored.record),
      [{ id: 'IN-3' }],
    );
  });
});
