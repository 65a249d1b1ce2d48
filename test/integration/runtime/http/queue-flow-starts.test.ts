/**
 * Flows through the ad-hoc routes on every engine, the runtime database in the engine's own
 * database: StartProcessAdHoc, StartProcessDirect and AddAction take a flow id with the GUID of a
 * record stored for its first step — the item a webhook's startSync makes for that flow — and the
 * run syncs just that stored record; a GUID the first step does not find ends the run Complete,
 * saying so, without running the later steps.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readRecords } from '../../../../runtime/record-store/read-records.js';
import { storeRecords } from '../../../../runtime/record-store/store-record.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, tokens, type HttpApp } from '../../../support/http-app.js';
import { flowClientToken, queueFiles } from '../../../support/queue-fixtures.js';

const flowId = 'inbox-then-customers';
const files = {
  ...queueFiles,
  'flow-hook.yaml': `kind: Webhook
id: flow-start-hook-000001
action: startSync
flow: ${flowId}
`,
};

await describeEachDatabase('flow starts with a source id', (database) => {
  describe('on the quickstart with a record-store flow', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), { files, env: { FLOW_CLIENT_TOKEN: flowClientToken } });
    });
    after(() => app?.close());

    const queueRow = async (id: string) => (await app.db.knex('queue_items').where({ id }).first()) as Record<string, unknown>;
    const storedGuids = async () => (await readRecords(app.db, { syncId: 'erp-inbox', limit: 100 })).records.map((stored) => stored.guid);
    const accountNumbers = async () => (await app.erp('accounts').orderBy('AccountNumber').pluck('AccountNumber')).map(String);

    it('StartProcessAdHoc and AddAction enqueue the flow with the GUID, as its webhook start does', async () => {
      const hooked = await app.call('POST', '/api/webhooks/flow-start-hook-000001', { token: null, body: { id: 'IN-7', name: 'Seven' } });
      assert.equal(hooked.status, 200, hooked.text);
      const fromHook = await queueRow(hooked.json.ID);
      const guid = String(fromHook.source_id);
      assert.deepEqual(await storedGuids(), [guid], 'the webhook stored the data for the first step');

      const adHoc = await app.post(`/api/StartProcessAdHoc/${flowId}/${guid}`, undefined, flowClientToken);
      assert.equal(adHoc.status, 200, adHoc.text);
      assert.deepEqual([adHoc.json.ProcessId, adHoc.json.StartType, adHoc.json.Status], [flowId, 'AdHoc', 'Pending']);
      const added = await app.post('/api/AddAction', { ProcessId: flowId.toUpperCase(), StartType: 'AdHoc', SourceId: guid });
      assert.equal(added.status, 200, added.text);
      for (const row of [await queueRow(adHoc.json.ID), await queueRow(added.json.ID)]) {
        const pick = (r: Record<string, unknown>) => [r.process_id, r.start_type, r.source_id, Number(r.max_attempts), r.status];
        assert.deepEqual(pick(row), pick(fromHook));
      }
      // A client allowed only some of the flow's syncs may not start it, by either route.
      assert.equal((await app.post(`/api/StartProcessAdHoc/${flowId}/${guid}`, undefined, tokens.queueWriter)).status, 403);
      assert.equal((await app.post(`/api/StartProcessDirect/${flowId}/${guid}`, undefined, tokens.queueWriter)).status, 403);
    });

    it('StartProcessDirect syncs just that stored record in the first step, runs the later steps and deletes the entry', async () => {
      const [first, second] = await storeRecords(app.db, 'erp-inbox', [
        { id: 'IN-A', name: 'Inbox A' },
        { id: 'IN-B', name: 'Inbox B' },
      ]);
      const waiting = await storedGuids();
      const answer = await app.post(`/api/StartProcessDirect/${flowId}/${first}`);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.Status, 'Complete', answer.text);
      assert.equal(answer.json.ProcessId, flowId);
      // Step 1 reads the one record; step 2, the quickstart sync, reads its 5 active customers.
      assert.equal(answer.json.Statistics.Read, 6, answer.text);
      assert.equal(answer.json.Statistics.Failed, 0, answer.text);
      const accounts = await accountNumbers();
      assert.ok(accounts.includes('IN-A') && accounts.includes('C-1'), accounts.join());
      assert.ok(!accounts.includes('IN-B') && !accounts.includes('IN-7'), 'the other stored records were not synced');
      assert.deepEqual((await storedGuids()).sort(), waiting.filter((guid) => guid !== first).sort());
      assert.ok((await storedGuids()).includes(second!));
    });

    it('a source id the first step does not find: Complete, saying so, and the later steps do not run', async () => {
      const [otherStore] = await storeRecords(app.db, 'crm-copy', [{ id: 'IN-X', name: 'Elsewhere' }]);
      const accounts = await accountNumbers();
      const synced = await app.erp('accounts').select('AccountNumber', 'SyncedAt').orderBy('AccountNumber');
      const waiting = await storedGuids();
      for (const sourceId of [randomUUID(), otherStore!, 'not-a-guid', "' OR 1=1 --", '1']) {
        const answer = await app.post(`/api/StartProcessDirect/${flowId}/${encodeURIComponent(sourceId)}`);
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.json.Status, 'Complete', answer.text);
        assert.deepEqual(answer.json.Statistics, { Read: 0, Created: 0, Updated: 0, Skipped: 0, Failed: 0, Unchanged: 0 }, sourceId);
        const messages = answer.json.Errors.map((error: { Message: string }) => error.Message).join('\n');
        assert.match(
          messages,
          /step 1 \(sync erp-inbox\): source record '.*' was not found in the record store of erp-inbox; nothing was synced/,
          sourceId,
        );
        assert.match(messages, /found no record for source id '.*', so the later steps did not run/, sourceId);
        assert.equal(answer.json.Errors[0].SourceId, sourceId);
      }
      assert.deepEqual(await accountNumbers(), accounts);
      assert.deepEqual(await app.erp('accounts').select('AccountNumber', 'SyncedAt').orderBy('AccountNumber'), synced, 'step 2 never ran');
      assert.deepEqual(await storedGuids(), waiting, 'nothing was deleted');
    });
  });
});
