/**
 * The queue routes on every engine of test/support/databases.ts, with the runtime database in the
 * engine's own database: enqueueing and polling, the quickstart sync run through ExecuteProcess and
 * StartProcessDirect with its statistics, /readyz's counts, and refusals that leave nothing behind.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type HttpApp } from '../../../support/http-app.js';

const syncId = 'crm-customers-to-erp';

await describeEachDatabase('queue routes', (database) => {
  describe('on the quickstart definitions', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database());
    });
    after(() => app?.close());

    it('enqueues an AdHoc item and answers it unchanged through GetAction', async () => {
      const started = await app.post(`/api/StartProcessAdHoc/${syncId}/4`);
      assert.equal(started.status, 200, started.text);
      assert.equal(started.json.Status, 'Pending');
      const polled = await app.get(`/api/GetAction/${started.json.ID}`);
      assert.equal(polled.status, 200, polled.text);
      assert.deepEqual(polled.json, started.json);
      const added = await app.post('/api/AddAction', {
        ProcessId: syncId,
        StartType: 'PLANNED',
        WhereClause: 'id > 2',
        ActionParams: [{ Name: 'a', Value: "' OR 1=1 --" }],
      });
      assert.equal(added.status, 200, added.text);
      assert.equal(added.json.StartType, 'planned');
    });

    it('runs the whole sync through ExecuteProcess: 5 read, 3 created, 1 updated, 1 skipped', async () => {
      const answer = await app.post(`/api/ExecuteProcess/${syncId}`, { StartType: 'manual' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.Status, 'Complete', answer.text);
      assert.deepEqual(answer.json.Statistics, { Read: 5, Created: 3, Updated: 1, Skipped: 1, Failed: 0, Unchanged: 0 });
      assert.deepEqual((await app.erp('accounts').orderBy('AccountNumber').pluck('AccountNumber')).map(String), [
        'C-1',
        'C-2',
        'C-4',
        'C-6',
      ]);
      assert.deepEqual((await app.get(`/api/GetAction/${answer.json.ID}`)).json, answer.json);
    });

    it('runs one record through StartProcessDirect', async () => {
      const answer = await app.post(`/api/StartProcessDirect/${syncId}/2`);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.Status, 'Complete', answer.text);
      assert.deepEqual(answer.json.Statistics, { Read: 1, Created: 0, Updated: 1, Skipped: 0, Failed: 0, Unchanged: 0 });
    });

    it('counts the items in /readyz', async () => {
      const ready = await app.get('/readyz', null);
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(
        { ...ready.json.queue, nextDue: typeof ready.json.queue.nextDue, note: typeof ready.json.queue.note },
        {
          Pending: 2,
          InProgress: 0,
          Complete: 2,
          Failed: 0,
          nextDue: 'string',
          daemon: 'inactive',
          daemons: { count: 0, list: [] },
          note: 'string',
        },
      );
    });

    it('answers payload ids 404 and bad bodies 400, enqueueing nothing', async () => {
      const count = async () => Number(((await app.db.knex('queue_items').count({ n: '*' })) as Array<{ n: unknown }>)[0]!.n);
      const before = await count();
      for (const payload of ["' OR 1=1 --", '1; DROP TABLE queue_items', 'not-a-uuid']) {
        assert.equal((await app.get(`/api/GetAction/${encodeURIComponent(payload)}`)).status, 404);
        assert.equal((await app.post('/api/AddAction', { ProcessId: payload, StartType: 'manual' })).status, 404);
        assert.equal((await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual', WhereClause: payload })).status, 400);
      }
      assert.equal(await count(), before);
    });
  });
});
