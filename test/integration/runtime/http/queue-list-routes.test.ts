/**
 * GET /api/queue, POST /api/queue/{id}/cancel and POST /api/queue/{id}/retry over HTTP on every
 * engine of test/support/databases.ts: every filter of the list, keyset paging that neither repeats
 * nor skips an item while new ones arrive, the sync allow-list applied in the query (full pages,
 * not pages thinned after the LIMIT), cancel and retry in each status, retries under a concurrency
 * limit, and the refusals (401, 403, 404, 409, 400 naming the parameter).
 *
 * Items are enqueued with times of 2024 (the queue's own enqueue, with its clock passed), so the
 * items a test starts now are newer than all of them, and each test reads its own day.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cancelPending } from '../../../../runtime/queue/cancel.js';
import { enqueue } from '../../../../runtime/queue/enqueue.js';
import type { StartType } from '../../../../runtime/queue/queue-item.js';
import { toDatabaseTime } from '../../../../runtime/database/timestamps.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, tokens, type Answer, type HttpApp } from '../../../support/http-app.js';
import { flowClientToken, queueFiles } from '../../../support/queue-fixtures.js';

const syncId = 'crm-customers-to-erp';
const strictSync = `kind: Sync
id: strict-copy
name: A sync that refuses a second run at once
source: { system: crm, object: Customer }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "S-" & $string(id), "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
concurrency: { limit: 1, onLimit: fail }
`;
const listKeys = [
  'Attempts',
  'CreatedDate',
  'ErrorCount',
  'FinishedDate',
  'ID',
  'ProcessId',
  'RetryOf',
  'SourceId',
  'StartType',
  'StartedDate',
  'Statistics',
  'Status',
  'WhereClause',
];

/** `day` of January 2024 (1-based), plus `seconds`. */
function at(day: number, seconds = 0): Date {
  return new Date(Date.UTC(2024, 0, day) + seconds * 1000);
}

function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.type, 'application/problem+json', answer.text);
  assert.equal(answer.json.type, `urn:syncline:problem:${code}`, answer.text);
  if (detail) assert.match(answer.json.detail, detail);
}

await describeEachDatabase('queue list, cancel and retry', (database) => {
  describe('over HTTP', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), {
        files: { ...queueFiles, 'strict.yaml': strictSync },
        env: { FLOW_CLIENT_TOKEN: flowClientToken },
      });
    });
    after(() => app?.close());

    /** Enqueues through the queue's own enqueue at `now`, then moves it to `status` (as a daemon would). */
    const seed = async (processId: string, startType: StartType, now: Date, status?: 'InProgress' | 'Complete' | 'Failed') => {
      const { item } = await enqueue(app.db, { processId, startType }, { now });
      if (status === 'Failed') assert.ok(await cancelPending(app.db, item.id, 'failed for the test', now));
      else if (status !== undefined)
        await app.db
          .knex('queue_items')
          .where({ id: item.id })
          .update({ status, locked_by: status === 'InProgress' ? 'test-worker' : null });
      return item.id;
    };
    const list = async (query: string, token?: string | null) => {
      const answer = await app.get(`/api/queue?${query}`, token);
      assert.equal(answer.status, 200, answer.text);
      return answer;
    };
    const ids = async (query: string, token?: string | null) =>
      (await list(query, token)).json.items.map((item: { ID: string }) => item.ID);
    const day = (n: number) => `createdFrom=${at(n).toISOString()}&createdTo=${at(n + 1).toISOString()}`;

    it('lists newest first, by every filter, alone and together', async () => {
      const a = await seed(syncId, 'AdHoc', at(1, 1));
      const b = await seed('crm-copy', 'manual', at(1, 2), 'Complete');
      const c = await seed(syncId, 'planned', at(1, 3), 'Failed');
      const d = await seed('crm-copy', 'AdHoc', at(1, 4), 'InProgress');
      const e = await seed(syncId, 'manual', at(1, 5));
      assert.deepEqual(await ids(day(1)), [e, d, c, b, a]);
      assert.deepEqual(await ids(`${day(1)}&sync=crm-copy`), [d, b]);
      assert.deepEqual(await ids(`${day(1)}&sync=CRM-Copy`), [d, b], 'a sync id in any case');
      assert.deepEqual(await ids(`${day(1)}&status=Pending`), [e, a]);
      assert.deepEqual(await ids(`${day(1)}&status=Failed&status=Complete`), [c, b]);
      assert.deepEqual(await ids(`${day(1)}&status=failed,COMPLETE`), [c, b]);
      assert.deepEqual(await ids(`${day(1)}&status=InProgress`), [d]);
      assert.deepEqual(await ids(`${day(1)}&startType=adhoc`), [d, a]);
      // createdFrom is inclusive, createdTo exclusive.
      assert.deepEqual(await ids(`createdFrom=${at(1, 2).toISOString()}&createdTo=${at(1, 4).toISOString()}`), [c, b]);
      assert.deepEqual(await ids('createdFrom=2024-01-01&createdTo=2024-01-01T00:00:03%2B00:00'), [b, a], 'a date, and an offset');
      assert.deepEqual(await ids(`${day(1)}&sync=${syncId}&status=Pending,Failed&startType=manual`), [e]);
      assert.deepEqual(await ids(`${day(1)}&sync=${encodeURIComponent("' OR 1=1 --")}`), [], 'a value is data, never SQL');

      const { items } = (await list(`${day(1)}&status=Failed`)).json;
      assert.deepEqual(Object.keys(items[0]).sort(), listKeys);
      assert.equal(items[0].ErrorCount, 1);
      assert.equal(items[0].Status, 'Failed');
      assert.equal(items[0].CreatedDate, at(1, 3).toISOString());
      const full = await app.get(`/api/GetAction/${c}`);
      const { Errors, ...summary } = full.json;
      assert.deepEqual({ ...items[0], ErrorCount: undefined }, { ...summary, ErrorCount: undefined }, 'the same fields as GetAction');
      assert.equal(Errors.length, 1);
    });

    it('pages by cursor without repeating or skipping an item while new ones arrive', async () => {
      const seeded: Array<{ id: string; at: Date }> = [];
      // Three items in one millisecond: the id orders them.
      for (const seconds of [1, 2, 2, 2, 3, 4, 5, 6, 7]) {
        const now = at(2, seconds);
        seeded.push({ id: await seed(syncId, 'manual', now), at: now });
      }
      const expected = seeded
        .sort((x, y) => y.at.getTime() - x.at.getTime() || (x.id < y.id ? 1 : x.id > y.id ? -1 : 0))
        .map((item) => item.id);
      const query = `createdFrom=${at(2).toISOString()}&limit=4`;
      const seen: string[] = [];
      let answer = await list(query);
      for (let page = 0; ; page += 1) {
        assert.ok(page < 5, 'the pages end');
        seen.push(...answer.json.items.map((item: { ID: string }) => item.ID));
        // New work arrives between pages: newer than every item shown, so it never moves one.
        const added = await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual' });
        assert.equal(added.status, 200, added.text);
        if (answer.json.next === null) break;
        assert.equal(answer.json.items.length, 4, 'only the last page is short');
        answer = await list(`${query}&cursor=${encodeURIComponent(answer.json.next)}`);
      }
      assert.deepEqual(seen, expected);
      assert.equal(new Set(seen).size, seen.length);
      assert.equal((await list(`createdFrom=${at(2).toISOString()}&createdTo=${at(3).toISOString()}&limit=9`)).json.next, null);
      assert.equal((await list(`createdFrom=${at(2).toISOString()}`)).json.items.length, 9 + 3, 'with the three that arrived');
    });

    it("shows a client with a sync allow-list only its syncs' items, in full pages", async () => {
      const a = await seed(syncId, 'AdHoc', at(3, 1));
      const other = await seed('crm-copy', 'AdHoc', at(3, 2));
      const b = await seed(syncId, 'AdHoc', at(3, 3));
      const flow = await seed('inbox-then-customers', 'AdHoc', at(3, 4));
      const others = [];
      for (let i = 5; i < 10; i += 1) others.push(await seed('crm-copy', 'manual', at(3, i)));
      const c = await seed(syncId, 'AdHoc', at(3, 10));
      assert.deepEqual(await ids(day(3), tokens.queueWriter), [c, b, a]);
      assert.deepEqual(await ids(day(3), flowClientToken), [c, flow, b, a], 'a flow whose syncs are all on the list');
      assert.deepEqual(await ids(day(3)), [c, ...others.reverse(), flow, b, other, a]);
      // One item a page: every page holds one of the client's items, none is empty before the end.
      const first = await list(`${day(3)}&limit=1`, tokens.queueWriter);
      assert.deepEqual(
        first.json.items.map((item: { ID: string }) => item.ID),
        [c],
      );
      const second = await list(`${day(3)}&limit=1&cursor=${first.json.next}`, tokens.queueWriter);
      assert.deepEqual(
        second.json.items.map((item: { ID: string }) => item.ID),
        [b],
      );
      const third = await list(`${day(3)}&limit=1&cursor=${second.json.next}`, tokens.queueWriter);
      assert.deepEqual(
        third.json.items.map((item: { ID: string }) => item.ID),
        [a],
      );
      assert.equal(third.json.next, null);
      const refused = await app.get(`/api/queue?sync=crm-copy`, tokens.queueWriter);
      assertProblem(refused, 403, 'not-allowed', /crm-copy/);
      assert.deepEqual(
        refused.json.errors.map((e: { path: string }) => e.path),
        ['query.sync'],
      );
      assertProblem(await app.get('/api/queue', tokens.reader), 403, 'missing-scope', /queue:read/);
      assertProblem(await app.get('/api/queue', null), 401, 'unauthenticated');
    });

    it('answers each bad parameter 400, naming it and the fix', async () => {
      const cases: Array<[string, string, RegExp]> = [
        ['limit=0', 'query.limit', /1 to 500/],
        ['limit=501', 'query.limit', /1 to 500/],
        ['limit=ten', 'query.limit', /1 to 500/],
        ['status=Done', 'query.status', /Pending, InProgress, Complete, Failed/],
        ['status=Pending,', 'query.status', /none of/],
        ['startType=daily', 'query.startType', /AdHoc, manual, repeat, planned, Single/],
        ['createdFrom=yesterday', 'query.createdFrom', /ISO 8601/],
        ['createdFrom=2024-02-30', 'query.createdFrom', /no such time/],
        ['createdFrom=2024-01-01T10:00:00', 'query.createdFrom', /with a zone/],
        ['createdFrom=2024-01-02&createdTo=2024-01-01', 'query.createdTo', /after createdFrom/],
        ['finishedFrom=2024-01-01&finishedTo=2024-01-01', 'query.finishedTo', /after finishedFrom/],
        ['finishedTo=2024-13-01', 'query.finishedTo', /ISO 8601/],
        ['cursor=bm90IGEgY3Vyc29y', 'query.cursor', /next/],
        [`cursor=${Buffer.from(JSON.stringify(['2024-01-01T00:00:00Z', "' OR 1=1"])).toString('base64url')}`, 'query.cursor', /next/],
        ['sync=a&sync=b', 'query.sync', /once/],
        ['satus=Failed', 'query.satus', /takes sync, status, startType/],
      ];
      for (const [query, path, message] of cases) {
        const answer = await app.get(`/api/queue?${query}`);
        assertProblem(answer, 400, 'invalid-request');
        assert.deepEqual(
          answer.json.errors.map((e: { path: string }) => e.path),
          [path],
          query,
        );
        assert.match(answer.json.errors[0].message, message, query);
        assert.match(answer.json.detail, new RegExp(path.slice('query.'.length)), query);
      }
    });

    it('cancels a Pending item, and only a Pending one', async () => {
      const pending = await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual' }, tokens.queueWriter);
      const id = pending.json.ID as string;
      const cancelled = await app.post(`/api/queue/${id}/cancel`, undefined, tokens.queueWriter);
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.json.Status, 'Failed');
      assert.equal(cancelled.json.Errors.length, 1);
      assert.equal(cancelled.json.Errors[0].Message, 'cancelled by client test-queue-writer');
      assert.ok(cancelled.json.FinishedDate);
      assert.deepEqual((await app.get(`/api/GetAction/${id}`)).json, cancelled.json);
      assertProblem(await app.post(`/api/queue/${id}/cancel`, undefined, tokens.queueWriter), 409, 'wrong-queue-status', /is Failed/);

      const running = await seed(syncId, 'manual', at(4, 1), 'InProgress');
      assertProblem(await app.post(`/api/queue/${running}/cancel`), 409, 'wrong-queue-status', /is InProgress/);
      const complete = await seed(syncId, 'manual', at(4, 2), 'Complete');
      assertProblem(await app.post(`/api/queue/${complete}/cancel`), 409, 'wrong-queue-status', /is Complete/);
      const statuses = await app.db.knex('queue_items').whereIn('id', [running, complete]).orderBy('created_at').pluck('status');
      assert.deepEqual(statuses, ['InProgress', 'Complete'], 'a refused cancel changes nothing');

      const elsewhere = await seed('crm-copy', 'manual', at(4, 3));
      assertProblem(await app.post(`/api/queue/${elsewhere}/cancel`, undefined, tokens.queueWriter), 404, 'unknown-queue-item');
      assertProblem(await app.post('/api/queue/00000000-0000-4000-8000-000000000000/cancel'), 404, 'unknown-queue-item');
      assertProblem(await app.post(`/api/queue/${encodeURIComponent("' OR 1=1 --")}/cancel`), 404, 'unknown-queue-item');
      assertProblem(await app.post(`/api/queue/${elsewhere}/cancel`, undefined, tokens.queueOnly), 403, 'missing-scope', /queue:write/);
      assertProblem(await app.post(`/api/queue/${elsewhere}/cancel`, undefined, null), 401, 'unauthenticated');
      assert.equal((await app.get(`/api/GetAction/${elsewhere}`)).json.Status, 'Pending');
    });

    it('retries a Failed item as a new item carrying RetryOf, leaving the failed one as it ended', async () => {
      const params = [{ Name: 'batch', Value: "' OR 1=1 --" }];
      const added = await app.post(
        '/api/AddAction',
        { ProcessId: syncId, StartType: 'planned', SourceId: '4', WhereClause: 'id > 2', ActionParams: params },
        tokens.queueWriter,
      );
      const id = added.json.ID as string;
      assert.equal((await app.post(`/api/queue/${id}/cancel`, undefined, tokens.queueWriter)).status, 200);
      const failed = (await app.get(`/api/GetAction/${id}`)).json;

      const retried = await app.post(`/api/queue/${id}/retry`, undefined, tokens.queueWriter);
      assert.equal(retried.status, 201, retried.text);
      assert.equal(retried.headers.get('location'), `/api/GetAction/${retried.json.ID}`);
      assert.notEqual(retried.json.ID, id);
      assert.deepEqual(
        { ...retried.json, ID: 'x', CreatedDate: 'x' },
        {
          ...failed,
          ID: 'x',
          CreatedDate: 'x',
          Status: 'Pending',
          FinishedDate: null,
          Errors: [],
          RetryOf: id,
        },
      );
      const row = await app.db.knex('queue_items').where({ id: retried.json.ID }).first();
      assert.deepEqual(typeof row.action_params === 'string' ? JSON.parse(row.action_params) : row.action_params, params);
      assert.equal(row.retry_of, id);
      assert.deepEqual((await app.get(`/api/GetAction/${id}`)).json, failed, 'the failed item is unchanged');
      assert.deepEqual((await app.get(`/api/GetAction/${retried.json.ID}`)).json, retried.json);
      const [listed] = (await list(`sync=${syncId}&limit=1`)).json.items;
      assert.equal(listed.ID, retried.json.ID);
      assert.equal(listed.RetryOf, id);

      assertProblem(
        await app.post(`/api/queue/${retried.json.ID}/retry`, undefined, tokens.queueWriter),
        409,
        'wrong-queue-status',
        /is Pending/,
      );
      const complete = await seed(syncId, 'manual', at(5, 1), 'Complete');
      assertProblem(await app.post(`/api/queue/${complete}/retry`), 409, 'wrong-queue-status', /is Complete/);
      const running = await seed(syncId, 'manual', at(5, 2), 'InProgress');
      assertProblem(await app.post(`/api/queue/${running}/retry`), 409, 'wrong-queue-status', /is InProgress/);
      const elsewhere = await seed('crm-copy', 'manual', at(5, 3), 'Failed');
      assertProblem(await app.post(`/api/queue/${elsewhere}/retry`, undefined, tokens.queueWriter), 404, 'unknown-queue-item');
      assertProblem(await app.post(`/api/queue/${id}/retry`, undefined, tokens.queueOnly), 403, 'missing-scope', /queue:write/);
      assertProblem(await app.post(`/api/queue/${id}/retry`, undefined, null), 401, 'unauthenticated');
      const removed = await seed('a-removed-sync', 'manual', at(5, 4), 'Failed');
      assertProblem(await app.post(`/api/queue/${removed}/retry`), 404, 'unknown-process', /no longer defined/);
      // A start that could only fail again (here a WhereClause that is a value, which AddAction refuses) is refused too.
      const stale = await seed(syncId, 'manual', at(5, 5), 'Failed');
      await app.db.knex('queue_items').where({ id: stale }).update({ where_clause: '7' });
      const before = (await list(`sync=${syncId}&limit=1`)).json.items[0].ID;
      assertProblem(
        await app.post(`/api/queue/${stale}/retry`),
        400,
        'invalid-request',
        /WhereClause, column 1: 7 is a value, not a condition/,
      );
      assert.equal((await list(`sync=${syncId}&limit=1`)).json.items[0].ID, before, 'no item was added');
      assertProblem(await app.post('/api/queue/00000000-0000-4000-8000-000000000000/retry'), 404, 'unknown-queue-item');
    });

    it("retries under the sync's concurrency limit as AddAction starts: onLimit fail records the retry Failed", async () => {
      const first = await app.post('/api/AddAction', { ProcessId: 'strict-copy', StartType: 'manual' });
      assert.equal(first.json.Status, 'Pending', first.text);
      const refused = await app.post('/api/AddAction', { ProcessId: 'strict-copy', StartType: 'manual' });
      assert.equal(refused.json.Status, 'Failed', refused.text);
      const limited = await app.post(`/api/queue/${refused.json.ID}/retry`);
      assert.equal(limited.status, 201, limited.text);
      assert.equal(limited.json.Status, 'Failed');
      assert.equal(limited.json.RetryOf, refused.json.ID);
      assert.match(limited.json.Errors[0].Message, /^not run: 'strict-copy' already had 1 run .*\(onLimit: fail\)$/);
      assert.equal((await app.post(`/api/queue/${first.json.ID}/cancel`)).status, 200);
      const free = await app.post(`/api/queue/${refused.json.ID}/retry`);
      assert.equal(free.status, 201, free.text);
      assert.equal(free.json.Status, 'Pending', 'with the limit free again, the retry waits for a daemon');
      assert.equal(free.json.RetryOf, refused.json.ID);
    });

    it('filters by the finish time: finished items only, finishedFrom inclusive, finishedTo exclusive', async () => {
      await seed(syncId, 'manual', at(6, 1));
      await seed(syncId, 'manual', at(6, 2), 'InProgress');
      // Cancelled at its creation time: finished at(6, 3).
      const early = await seed(syncId, 'manual', at(6, 3), 'Failed');
      const late = await seed('crm-copy', 'manual', at(6, 4), 'Complete');
      await app.db
        .knex('queue_items')
        .where({ id: late })
        .update({ finished_at: toDatabaseTime(app.db.dialect, at(6, 10)) });
      const finished = (from: Date, to: Date) => `finishedFrom=${from.toISOString()}&finishedTo=${to.toISOString()}`;
      assert.deepEqual(
        await ids(`${day(6)}&finishedFrom=${at(6).toISOString()}`),
        [late, early],
        'Pending and InProgress have not finished',
      );
      assert.deepEqual(await ids(finished(at(6, 3), at(6, 10))), [early]);
      assert.deepEqual(await ids(finished(at(6, 4), at(7))), [late]);
      assert.deepEqual(await ids(`${finished(at(6), at(7))}&sync=crm-copy`), [late], 'with the other filters');
      assert.deepEqual(await ids(`${day(6)}&finishedTo=${at(6, 4).toISOString()}`), [early]);
    });
  });
});
