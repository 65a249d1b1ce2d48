/**
 * A webhook start into the record store, then GetAction, on every engine: the item a start with
 * `recordStore: true` creates carries the stored record's GUID as its SourceId, and both the
 * webhook's answer and GetAction show it — so a caller can tell which stored record an item runs.
 * The item's ActionParams (a parameter start passes the request data in them) are not shown.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, tokens, type HttpApp } from '../../../support/http-app.js';

const storeHook = 'wh_recordStoreStart0001';
const paramsHook = 'wh_paramsStart000000001';
const guid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const files = {
  'record-store-start.yaml': `kind: Sync
id: inbox-to-accounts
source: { recordStore: true }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": id, "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#" }
---
kind: Webhook
id: ${storeHook}
action: startSync
sync: inbox-to-accounts
recordStore: true
---
kind: Webhook
id: ${paramsHook}
action: startSync
sync: crm-customers-to-erp
`,
};

await describeEachDatabase('a record-store start seen through GetAction', (database) => {
  describe('webhook start, then GetAction', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), { files });
    });
    after(() => app.close());

    it('shows the GUID of the stored record as SourceId, in the answer and in GetAction', async () => {
      const started = await app.call('POST', `/api/webhooks/${storeHook}`, { token: null, body: { id: 'IN-7', name: 'Inbox Seven' } });
      assert.equal(started.status, 200, started.text);
      assert.match(started.json.SourceId, guid);
      assert.equal(started.json.WhereClause, null);
      const stored = await app.db.knex('record_store').where({ guid: started.json.SourceId }).first();
      assert.ok(stored, 'the SourceId is the GUID the record is stored under');
      assert.equal(stored.sync_id, 'inbox-to-accounts');

      const item = await app.get(`/api/GetAction/${started.json.ID}`, tokens.queueOnly);
      assert.equal(item.status, 200, item.text);
      assert.equal(item.json.SourceId, started.json.SourceId);
      assert.deepEqual(item.json, started.json);
    });

    it('an array body: one stored record and one item per element, each item with its own GUID', async () => {
      const started = await app.call('POST', `/api/webhooks/${storeHook}`, {
        token: null,
        body: [
          { id: 'IN-8', name: 'Eight' },
          { id: 'IN-9', name: 'Nine' },
        ],
      });
      assert.equal(started.status, 200, started.text);
      const sourceIds = (started.json as Array<{ ID: string; SourceId: string }>).map((item) => item.SourceId);
      assert.equal(new Set(sourceIds).size, 2);
      for (const item of started.json as Array<{ ID: string; SourceId: string }>) {
        assert.equal((await app.get(`/api/GetAction/${item.ID}`)).json.SourceId, item.SourceId);
      }
      const stored = (await app.db.knex('record_store').whereIn('guid', sourceIds).select('guid')) as Array<{ guid: string }>;
      assert.deepEqual(stored.map((row) => row.guid).sort(), [...sourceIds].sort());
    });

    it('a parameter start shows no SourceId and none of the request data it passed as ActionParams', async () => {
      const started = await app.call('POST', `/api/webhooks/${paramsHook}`, {
        token: null,
        body: { id: 3, password: 'hunter2-never-shown' },
      });
      assert.equal(started.status, 200, started.text);
      const item = await app.get(`/api/GetAction/${started.json.ID}`);
      assert.equal(item.json.SourceId, null);
      assert.ok(!('ActionParams' in item.json));
      assert.ok(!item.text.includes('hunter2'), item.text);
    });
  });
});
