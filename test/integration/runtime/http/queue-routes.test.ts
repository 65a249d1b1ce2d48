/**
 * The five queue routes over HTTP on the quickstart: enqueueing (StartProcessAdHoc, AddAction),
 * running in the request (StartProcessDirect, ExecuteProcess, with the real sync engine and its
 * statistics), the 202 of a run past the synchronous time limit, GetAction, and every refusal
 * (401, 403, 404, each 400 with its path) leaving nothing enqueued. No daemon runs here, so
 * enqueued items stay Pending, as the seed says.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { upsertDaemon } from '../../../../runtime/cluster/register-daemon.js';
import { noDaemonNote } from '../../../../runtime/http/queue-readiness.js';
import { quickstartApp, tokens, type Answer, type HttpApp } from '../../../support/http-app.js';
import { flowClientToken, queueFiles } from '../../../support/queue-fixtures.js';

const syncId = 'crm-customers-to-erp';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const itemKeys = [
  'Attempts',
  'CreatedDate',
  'Errors',
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
const zero = { Read: 0, Created: 0, Updated: 0, Skipped: 0, Failed: 0, Unchanged: 0 };

function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.type, 'application/problem+json', answer.text);
  assert.equal(answer.json.type, `urn:syncline:problem:${code}`, answer.text);
  assert.equal(answer.json.status, status);
  if (detail) assert.match(answer.json.detail, detail);
}

/** Fails unless the answer is 400 invalid-request with exactly these error paths. */
function assertInvalid(answer: Answer, paths: string[], message?: RegExp): void {
  assertProblem(answer, 400, 'invalid-request');
  assert.deepEqual(
    (answer.json.errors as Array<{ path: string }>).map((e) => e.path),
    paths,
    answer.text,
  );
  if (message) assert.match(JSON.stringify(answer.json.errors), message);
}

function assertItem(answer: Answer, expected: { status: number; StartType: string; ProcessId: string; Status: string }): void {
  assert.equal(answer.status, expected.status, answer.text);
  assert.equal(answer.type, 'application/json');
  const item = answer.json;
  assert.deepEqual(Object.keys(item).sort(), itemKeys);
  assert.match(item.ID, uuid);
  assert.equal(item.StartType, expected.StartType);
  assert.equal(item.ProcessId, expected.ProcessId);
  assert.equal(item.Status, expected.Status);
  assert.match(item.CreatedDate, iso);
  assert.ok(Math.abs(Date.parse(item.CreatedDate) - Date.now()) < 60_000, 'created just now');
}

async function itemCount(app: HttpApp): Promise<number> {
  const [row] = (await app.db.knex('queue_items').count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(row!.n);
}

async function pollUntilDone(app: HttpApp, id: string, timeoutMs = 10_000): Promise<Answer> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await app.get(`/api/GetAction/${id}`);
    assert.equal(answer.status, 200, answer.text);
    if (answer.json.Status === 'Complete' || answer.json.Status === 'Failed') return answer;
    assert.ok(performance.now() < deadline, `item ${id} did not finish: ${answer.text}`);
    await sleep(25);
  }
}

describe('queue routes on the quickstart', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp({ files: queueFiles, env: { FLOW_CLIENT_TOKEN: flowClientToken } });
  });
  after(() => app.close());

  describe('StartProcessAdHoc', () => {
    it('enqueues a Pending AdHoc item and answers it with 200, the item shape and Content-Location', async () => {
      const answer = await app.post(`/api/StartProcessAdHoc/${syncId}/4`);
      assertItem(answer, { status: 200, StartType: 'AdHoc', ProcessId: syncId, Status: 'Pending' });
      assert.deepEqual(
        { ...answer.json, ID: 'x', CreatedDate: 'x' },
        {
          ID: 'x',
          StartType: 'AdHoc',
          ProcessId: syncId,
          CreatedDate: 'x',
          Status: 'Pending',
          SourceId: '4',
          WhereClause: null,
          StartedDate: null,
          FinishedDate: null,
          Attempts: 0,
          Statistics: zero,
          Errors: [],
          RetryOf: null,
        },
      );
      assert.equal(answer.headers.get('content-location'), `/api/GetAction/${answer.json.ID}`);
      const row = await app.db.knex('queue_items').where({ id: answer.json.ID }).first();
      assert.equal(row.source_id, '4');
      assert.equal(row.status, 'Pending');
      assert.equal(Number(row.max_attempts), 4, "the sync's retries.max 3, plus the first attempt");
    });

    it('takes the sync id in any case and answers its canonical spelling', async () => {
      const answer = await app.post('/API/startprocessadhoc/CRM-Customers-To-ERP/1');
      assertItem(answer, { status: 200, StartType: 'AdHoc', ProcessId: syncId, Status: 'Pending' });
    });

    it('answers 404 naming the syncs and flows for an unknown id', async () => {
      const before = await itemCount(app);
      assertProblem(
        await app.post('/api/StartProcessAdHoc/no-such-sync/1'),
        404,
        'unknown-process',
        /There is no sync or flow "no-such-sync".*crm-customers-to-erp.*inbox-then-customers/,
      );
      assert.equal(await itemCount(app), before);
    });

    it('takes a flow: its source id goes to the first step', async () => {
      const answer = await app.post('/api/StartProcessAdHoc/inbox-then-customers/1');
      assertItem(answer, { status: 200, StartType: 'AdHoc', ProcessId: 'inbox-then-customers', Status: 'Pending' });
      assert.equal((await app.db.knex('queue_items').where({ id: answer.json.ID }).first()).source_id, '1');
    });

    it('refuses a source id longer than the queue holds', async () => {
      assertInvalid(await app.post(`/api/StartProcessAdHoc/${syncId}/${'1'.repeat(1025)}`), ['path.sourceId'], /at most 1024/);
    });

    it('refuses a source id that is no key value of the source, naming the key field, and enqueues nothing', async () => {
      const before = await itemCount(app);
      const notInteger = /not a valid Integer value for the key field id of crm\/Customer/;
      assertInvalid(await app.post(`/api/StartProcessAdHoc/${syncId}/abc`), ['path.sourceId'], notInteger);
      assertInvalid(await app.post(`/api/StartProcessAdHoc/${syncId}/1.5`), ['path.sourceId'], notInteger);
      assertInvalid(await app.post(`/api/StartProcessDirect/${syncId}/abc`), ['path.sourceId'], notInteger);
      // Past what the SQL source's 64-bit column holds: the run would refuse it as its read by id does.
      for (const id of ['9223372036854775808', '-9223372036854775809', '99999999999999999999999999']) {
        assertInvalid(await app.post(`/api/StartProcessAdHoc/${syncId}/${id}`), ['path.sourceId'], notInteger);
      }
      assertInvalid(
        await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'AdHoc', SourceId: 'abc' }),
        ['/SourceId'],
        notInteger,
      );
      assertInvalid(
        await app.post(`/api/StartProcessAdHoc/${syncId}/${encodeURIComponent('{"customer":1}')}`),
        ['path.sourceId'],
        /The key of crm\/Customer is id; missing id; not key fields: customer/,
      );
      assertInvalid(
        await app.post(`/api/StartProcessAdHoc/${syncId}/${encodeURIComponent('{"id":2,"id":4}')}`),
        ['path.sourceId'],
        /The key object gives \\"id\\" twice/,
      );
      assertInvalid(
        await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'AdHoc', SourceId: '{"id":2,"id":4}' }),
        ['/SourceId'],
        /The key object gives \\"id\\" twice/,
      );
      assert.equal(await itemCount(app), before);
      // A query source's id is its first column's value, which the run binds as a number when it spells one.
      assertInvalid(
        await app.post('/api/StartProcessAdHoc/city-query-copy/abc'),
        ['path.sourceId'],
        /not a valid Integer value for the first column id of query crm\/activeCustomersByCity/,
      );
      for (const id of ['1', '1.0', '1e0']) {
        assertItem(await app.post(`/api/StartProcessAdHoc/city-query-copy/${id}`), {
          status: 200,
          StartType: 'AdHoc',
          ProcessId: 'city-query-copy',
          Status: 'Pending',
        });
      }
      // The key's value in any spelling the run reads: the value, or a JSON object naming it; up to 64 bits.
      for (const id of ['7', ' 7 ', encodeURIComponent('{"id":7}'), '9223372036854775807']) {
        assertItem(await app.post(`/api/StartProcessAdHoc/${syncId}/${id}`), {
          status: 200,
          StartType: 'AdHoc',
          ProcessId: syncId,
          Status: 'Pending',
        });
      }
    });
  });

  describe('AddAction', () => {
    it('enqueues any start type in any case, answered in its canonical spelling, with its filter and parameters stored', async () => {
      for (const [sent, answered] of [
        ['MANUAL', 'manual'],
        ['adhoc', 'AdHoc'],
        ['Repeat', 'repeat'],
        ['PLANNED', 'planned'],
        ['single', 'Single'],
      ] as const) {
        const answer = await app.post('/api/AddAction', { ProcessId: syncId, StartType: sent });
        assertItem(answer, { status: 200, StartType: answered, ProcessId: syncId, Status: 'Pending' });
        assert.equal(answer.headers.get('content-location'), `/api/GetAction/${answer.json.ID}`);
      }
      const params = [
        { Name: 'Country', Value: 'US' },
        { Name: 'note', Value: "' OR 1=1 --" },
      ];
      const answer = await app.post('/api/AddAction', {
        ProcessId: syncId,
        StartType: 'manual',
        SourceId: '6',
        WhereClause: 'addresses.main.country = #params.Country#',
        ActionParams: params,
      });
      assertItem(answer, { status: 200, StartType: 'manual', ProcessId: syncId, Status: 'Pending' });
      const row = await app.db.knex('queue_items').where({ id: answer.json.ID }).first();
      assert.equal(row.where_clause, 'addresses.main.country = #params.Country#');
      assert.equal(row.source_id, '6');
      assert.deepEqual(JSON.parse(row.action_params), params);
      // GetAction shows what the start asked for, except the parameters' values (they may carry credentials).
      const polled = await app.get(`/api/GetAction/${answer.json.ID}`, tokens.queueOnly);
      assert.equal(polled.json.SourceId, '6');
      assert.equal(polled.json.WhereClause, 'addresses.main.country = #params.Country#');
      assert.ok(!('ActionParams' in polled.json) && !polled.text.includes('1=1'), polled.text);
    });

    it('takes property names in any case, null for what is optional, and an empty WhereClause as none', async () => {
      const answer = await app.post('/api/AddAction', {
        processid: syncId,
        starttype: 'manual',
        whereclause: '  ',
        actionParams: null,
        SourceId: null,
      });
      assertItem(answer, { status: 200, StartType: 'manual', ProcessId: syncId, Status: 'Pending' });
      const row = await app.db.knex('queue_items').where({ id: answer.json.ID }).first();
      assert.equal(row.where_clause, null);
      assert.equal(row.action_params, null);
      assert.equal(answer.json.SourceId, null);
      assert.equal(answer.json.WhereClause, null);
    });

    it('enqueues a flow, with a WhereClause checked against its first sync and a SourceId for it', async () => {
      const answer = await app.post('/api/AddAction', { ProcessId: 'inbox-then-customers', StartType: 'AdHoc', WhereClause: "name = 'x'" });
      assertItem(answer, { status: 200, StartType: 'AdHoc', ProcessId: 'inbox-then-customers', Status: 'Pending' });
      const withSource = await app.post('/api/AddAction', { ProcessId: 'inbox-then-customers', StartType: 'AdHoc', SourceId: '1' });
      assertItem(withSource, { status: 200, StartType: 'AdHoc', ProcessId: 'inbox-then-customers', Status: 'Pending' });
    });

    it('leaves its items Pending: no daemon runs here', async () => {
      const answer = await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual' });
      await sleep(300);
      const polled = await app.get(`/api/GetAction/${answer.json.ID}`);
      assert.equal(polled.json.Status, 'Pending');
      assert.equal(polled.json.StartedDate, null);
      const ready = await app.get('/readyz', null);
      assert.equal(ready.status, 200, ready.text);
      assert.equal(ready.json.queue.daemon, 'inactive');
      assert.deepEqual(ready.json.queue.daemons, { count: 0, list: [] });
      assert.equal(ready.json.queue.note, noDaemonNote, "the seed's rule in words: without a daemon, Pending items stay Pending");
      assert.ok(ready.json.queue.Pending >= 1);
      assert.match(ready.json.queue.nextDue, iso);
    });

    it('names every bad field at its path, and enqueues nothing', async () => {
      const before = await itemCount(app);
      const cases: Array<[unknown, string[], RegExp?]> = [
        [{ ProcessId: syncId }, ['/StartType'], /StartType is required: one of AdHoc, manual, repeat, planned, Single/],
        [{ ProcessId: syncId, StartType: 'weekly' }, ['/StartType'], /\\"weekly\\" is not one of AdHoc, manual, repeat, planned, Single/],
        [{ ProcessId: syncId, StartType: 3 }, ['/StartType']],
        [{ StartType: 'manual' }, ['/ProcessId'], /ProcessId is required/],
        [{ ProcessId: 7, StartType: 'manual' }, ['/ProcessId'], /must be a string, not a number/],
        [
          { ProcessId: syncId, StartType: 'manual', ActionParams: { Name: 'a', Value: 'b' } },
          ['/ActionParams'],
          /array of \{\\"Name\\": string, \\"Value\\": string\}/,
        ],
        [{ ProcessId: syncId, StartType: 'manual', ActionParams: [{ Name: 'a', Value: 1 }] }, ['/ActionParams/0/Value'], /send \\"1\\"/],
        [
          {
            ProcessId: syncId,
            StartType: 'manual',
            ActionParams: [{ Name: 'a' }, 'b', { Name: '', Value: 'c' }, { Name: 'd', Value: 'e', Extra: 1 }],
          },
          ['/ActionParams/0/Value', '/ActionParams/1', '/ActionParams/2/Name', '/ActionParams/3/Extra'],
        ],
        [
          { ProcessId: syncId, StartType: 'manual', Priority: 1, 'a/b': 2 },
          ['/Priority', '/a~1b'],
          /Unknown property \\"Priority\\"; the properties are ProcessId, StartType, SourceId, WhereClause, ActionParams/,
        ],
        [{ ProcessId: syncId, StartType: 'manual', startType: 'manual' }, ['/startType'], /given twice/],
        [{ ProcessId: syncId, StartType: 'manual', WhereClause: 5 }, ['/WhereClause']],
        [{ ProcessId: syncId, StartType: 'manual', WhereClause: 'x'.repeat(8193) }, ['/WhereClause'], /at most 8192/],
        [{ StartType: 'sometimes', ActionParams: 'x', Foo: 1 }, ['/Foo', '/ProcessId', '/StartType', '/ActionParams']],
        [[], [''], /must be a JSON object/],
        ['manual', [''], /not a string/],
        [null, ['']],
      ];
      for (const [body, paths, message] of cases)
        assertInvalid(
          await app.call('POST', '/api/AddAction', { raw: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
          paths,
          message,
        );
      assert.equal(await itemCount(app), before);
    });

    it('answers a WhereClause that does not parse or names unknown fields with 400 at /WhereClause and the column', async () => {
      const before = await itemCount(app);
      assertInvalid(
        await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual', WhereClause: "name = 'Ada' AND (" }),
        ['/WhereClause'],
        /column \d+/,
      );
      assertInvalid(
        await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual', WhereClause: 'salary > 3' }),
        ['/WhereClause'],
        /column 1: crm\/Customer has no field 'salary'/,
      );
      assertInvalid(
        await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual', WhereClause: '1=1; DROP TABLE queue_items; --' }),
        ['/WhereClause'],
        /column/,
      );
      // A value for a condition would sync every record, not the one meant.
      assertInvalid(
        await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual', WhereClause: '7' }),
        ['/WhereClause'],
        /WhereClause, column 1: 7 is a value, not a condition: .*\(e\.g\. id = 7\)/,
      );
      assertInvalid(
        await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual', WhereClause: "active AND 'x'" }),
        ['/WhereClause'],
        /column 12: 'x' is a value/,
      );
      assertInvalid(
        await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual', WhereClause: 'addresses.main.city' }),
        ['/WhereClause'],
        /column 1: addresses\.main\.city is a String field, not a condition/,
      );
      assert.equal(await itemCount(app), before);
      // A Boolean field and an ActionParam are flags: they stay tests.
      for (const WhereClause of ['active', 'NOT active', '#params.Flag#']) {
        const answer = await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual', WhereClause });
        assert.equal(answer.status, 200, `${WhereClause}: ${answer.text}`);
      }
    });

    it('answers malformed JSON, an empty body and another media type before looking at anything', async () => {
      assertProblem(
        await app.call('POST', '/api/AddAction', { raw: '{"ProcessId": ', headers: { 'content-type': 'application/json' } }),
        400,
        'malformed-json',
      );
      assertProblem(await app.call('POST', '/api/AddAction', {}), 400, 'malformed-json', /needs a JSON body/);
      assertProblem(
        await app.call('POST', '/api/AddAction', { raw: 'ProcessId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        415,
        'unsupported-media-type',
      );
    });

    it('answers 404 for an unknown process, naming the syncs and flows', async () => {
      assertProblem(
        await app.post('/api/AddAction', { ProcessId: 'nope', StartType: 'manual' }),
        404,
        'unknown-process',
        /no sync or flow "nope".*crm-customers-to-erp.*inbox-then-customers/,
      );
    });
  });

  describe('StartProcessDirect and ExecuteProcess run the sync in the request', () => {
    it('ExecuteProcess runs the whole quickstart sync: 5 read, 3 created, 1 updated, 1 skipped (no email)', async () => {
      const answer = await app.post(`/api/ExecuteProcess/${syncId}`, { StartType: 'manual' });
      assertItem(answer, { status: 200, StartType: 'manual', ProcessId: syncId, Status: 'Complete' });
      assert.deepEqual(answer.json.Statistics, { Read: 5, Created: 3, Updated: 1, Skipped: 1, Failed: 0, Unchanged: 0 });
      assert.equal(answer.json.Attempts, 1);
      assert.match(answer.json.StartedDate, iso);
      assert.match(answer.json.FinishedDate, iso);
      const accounts = await app.erp('accounts').select('AccountNumber', 'AccountName', 'Email').orderBy('AccountNumber');
      assert.deepEqual(
        accounts.map((a) => a.AccountNumber),
        ['C-1', 'C-2', 'C-4', 'C-6'],
      );
      assert.equal(accounts[0].Email, 'ada@example.com');
      assert.equal(accounts[1].AccountName, 'Grace Hopper');
      const polled = await app.get(`/api/GetAction/${answer.json.ID}`);
      assert.deepEqual(polled.json, answer.json, 'GetAction answers the same finished item');
    });

    it('ExecuteProcess applies the WhereClause and ActionParams', async () => {
      const answer = await app.post(`/api/ExecuteProcess/${syncId}`, {
        StartType: 'Single',
        WhereClause: 'addresses.main.country = #params.Country#',
        ActionParams: [{ Name: 'Country', Value: 'GB' }],
      });
      assertItem(answer, { status: 200, StartType: 'Single', ProcessId: syncId, Status: 'Complete' });
      assert.deepEqual(answer.json.Statistics, { Read: 1, Created: 0, Updated: 1, Skipped: 0, Failed: 0, Unchanged: 0 });
    });

    it('StartProcessDirect runs one source record and answers the finished AdHoc item', async () => {
      await app.erp('accounts').where({ AccountNumber: 'C-6' }).delete();
      const answer = await app.post(`/api/StartProcessDirect/${syncId}/6`);
      assertItem(answer, { status: 200, StartType: 'AdHoc', ProcessId: syncId, Status: 'Complete' });
      assert.deepEqual(answer.json.Statistics, { Read: 1, Created: 1, Updated: 0, Skipped: 0, Failed: 0, Unchanged: 0 });
      assert.equal(answer.headers.get('content-location'), `/api/GetAction/${answer.json.ID}`);
      assert.equal((await app.erp('accounts').where({ AccountNumber: 'C-6' }).first()).AccountName, 'Barbara Liskov');
    });

    it('ExecuteProcess refuses AdHoc, SourceId and a bad body before running anything', async () => {
      const before = await itemCount(app);
      assertInvalid(
        await app.post(`/api/ExecuteProcess/${syncId}`, { StartType: 'AdHoc' }),
        ['/StartType'],
        /not one of manual, repeat, planned, Single.*StartProcessDirect/,
      );
      assertInvalid(
        await app.post(`/api/ExecuteProcess/${syncId}`, { StartType: 'manual', SourceId: '1' }),
        ['/SourceId'],
        /the properties are WhereClause, StartType, ActionParams/,
      );
      assertInvalid(await app.post(`/api/ExecuteProcess/${syncId}`, {}), ['/StartType']);
      assertInvalid(
        await app.post(`/api/ExecuteProcess/${syncId}`, { StartType: 'manual', WhereClause: 'email ~ 1' }),
        ['/WhereClause'],
        /column/,
      );
      assertProblem(await app.post('/api/ExecuteProcess/nope', { StartType: 'manual' }), 404, 'unknown-process');
      assert.equal(await itemCount(app), before);
    });
  });

  describe('GetAction', () => {
    it('answers the full item of an id in any case', async () => {
      const started = await app.post(`/api/StartProcessAdHoc/${syncId}/2`);
      const answer = await app.get(`/api/GetAction/${started.json.ID.toUpperCase()}`, tokens.queueOnly);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, started.json);
    });

    it('answers 404 for an unknown id, a non-UUID and injection payloads', async () => {
      for (const id of [
        '00000000-0000-4000-8000-000000000000',
        'not-a-uuid',
        encodeURIComponent("' OR '1'='1"),
        encodeURIComponent('1; DROP TABLE queue_items'),
      ]) {
        assertProblem(await app.get(`/api/GetAction/${id}`), 404, 'unknown-queue-item', /There is no queue item/);
      }
    });
  });

  describe('authorization', () => {
    const starts = [
      { method: 'POST', path: `/api/StartProcessAdHoc/${syncId}/1` },
      { method: 'POST', path: '/api/AddAction', body: { ProcessId: syncId, StartType: 'manual' } },
      { method: 'POST', path: `/api/StartProcessDirect/${syncId}/1` },
      { method: 'POST', path: `/api/ExecuteProcess/${syncId}`, body: { StartType: 'manual' } },
    ];

    it('answers 401 without a token on all five routes', async () => {
      for (const route of [...starts, { method: 'GET', path: '/api/GetAction/00000000-0000-4000-8000-000000000000' }]) {
        assertProblem(
          await app.call(route.method, route.path, { token: null, ...('body' in route ? { body: route.body } : {}) }),
          401,
          'unauthenticated',
        );
      }
    });

    it('answers 403 to the starts without queue:write, and to GetAction without queue:read', async () => {
      const before = await itemCount(app);
      for (const route of starts) {
        assertProblem(
          await app.call(route.method, route.path, { token: tokens.queueOnly, ...(route.body ? { body: route.body } : {}) }),
          403,
          'missing-scope',
          /queue:write/,
        );
      }
      assertProblem(
        await app.get('/api/GetAction/00000000-0000-4000-8000-000000000000', tokens.reader),
        403,
        'missing-scope',
        /queue:read/,
      );
      assert.equal(await itemCount(app), before);
    });

    it('answers 403 for a process outside the allow-list, known or not, before revealing existence', async () => {
      const before = await itemCount(app);
      for (const id of ['crm-copy', 'no-such-sync', 'inbox-then-customers']) {
        assertProblem(
          await app.post(`/api/StartProcessAdHoc/${id}/1`, undefined, tokens.queueWriter),
          403,
          'not-allowed',
          /It may start: crm-customers-to-erp\.$/,
        );
        assertProblem(await app.post(`/api/ExecuteProcess/${id}`, { StartType: 'manual' }, tokens.queueWriter), 403, 'not-allowed');
        assertProblem(await app.post('/api/AddAction', { ProcessId: id, StartType: 'manual' }, tokens.queueWriter), 403, 'not-allowed');
      }
      assert.equal(await itemCount(app), before);
      const allowed = await app.post(`/api/StartProcessAdHoc/${syncId}/1`, undefined, tokens.queueWriter);
      assert.equal(allowed.status, 200, allowed.text);
    });

    it('allows a flow when every sync it runs is on the list', async () => {
      const answer = await app.post('/api/AddAction', { ProcessId: 'inbox-then-customers', StartType: 'manual' }, flowClientToken);
      assertItem(answer, { status: 200, StartType: 'manual', ProcessId: 'inbox-then-customers', Status: 'Pending' });
      assertProblem(
        await app.post('/api/AddAction', { ProcessId: 'nope', StartType: 'manual' }, flowClientToken),
        403,
        'not-allowed',
        /It may start: erp-inbox, crm-customers-to-erp, inbox-then-customers\.$/,
      );
      assert.equal((await app.get(`/api/GetAction/${answer.json.ID}`, flowClientToken)).status, 200);
      assertProblem(await app.get(`/api/GetAction/${answer.json.ID}`, tokens.queueWriter), 404, 'unknown-queue-item');
    });

    it('answers GetAction of an item outside the allow-list exactly like an unknown id', async () => {
      const other = await app.post('/api/AddAction', { ProcessId: 'crm-copy', StartType: 'manual' });
      assert.equal(other.status, 200, other.text);
      const hidden = await app.get(`/api/GetAction/${other.json.ID}`, tokens.queueWriter);
      const unknown = await app.get('/api/GetAction/00000000-0000-4000-8000-000000000000', tokens.queueWriter);
      assertProblem(hidden, 404, 'unknown-queue-item');
      assert.equal(
        hidden.json.detail.replace(other.json.ID, 'ID'),
        unknown.json.detail.replace('00000000-0000-4000-8000-000000000000', 'ID'),
      );
      assert.equal((await app.get(`/api/GetAction/${other.json.ID}`)).status, 200);
    });
  });

  describe('injection payloads', () => {
    const payloads = [
      "' OR 1=1 --",
      "crm-customers-to-erp' --",
      '"; DROP TABLE queue_items; --',
      '../../etc/passwd',
      '${process.exit()}',
      '#params.x#',
      '%00',
    ];

    it('answers ids that are payloads with 404, enqueueing nothing', async () => {
      const before = await itemCount(app);
      for (const payload of payloads) {
        const id = encodeURIComponent(payload);
        assertProblem(await app.post(`/api/StartProcessAdHoc/${id}/1`), 404, 'unknown-process');
        assertProblem(await app.post(`/api/StartProcessDirect/${id}/1`), 404, 'unknown-process');
        assertProblem(await app.post(`/api/ExecuteProcess/${id}`, { StartType: 'manual' }), 404, 'unknown-process');
        assertProblem(await app.post('/api/AddAction', { ProcessId: payload, StartType: 'manual' }), 404, 'unknown-process');
        const start = await app.post('/api/AddAction', { ProcessId: syncId, StartType: payload });
        assertInvalid(start, ['/StartType']);
      }
      assert.equal(await itemCount(app), before);
    });

    it('stores source ids and parameters that look like code as data, exactly', async () => {
      // erp-inbox reads the record store, whose ids are text: any of these could be one.
      for (const payload of payloads) {
        const answer = await app.post(`/api/StartProcessAdHoc/erp-inbox/${encodeURIComponent(payload)}`);
        assert.equal(answer.status, 200, answer.text);
        const row = await app.db.knex('queue_items').where({ id: answer.json.ID }).first();
        assert.equal(row.source_id, payload);
      }
      assert.ok((await itemCount(app)) > 0, 'queue_items is still there');
    });
  });
});

describe('a direct run past the synchronous time limit', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp({
      syncTimeLimitMs: 100,
      runProcess: (real) => async (environment, start) => {
        await sleep(600);
        return real(environment, start);
      },
    });
  });
  after(() => app.close());

  it('answers 202 with the running item and Location, and finishes the run for GetAction', async () => {
    for (const request of [
      { path: `/api/StartProcessDirect/${syncId}/1`, body: undefined, read: 1 },
      { path: `/api/ExecuteProcess/${syncId}`, body: { StartType: 'repeat' }, read: 5 },
    ]) {
      const answer = await app.post(request.path, request.body);
      assert.equal(answer.status, 202, answer.text);
      assert.equal(answer.json.Status, 'InProgress');
      assert.equal(answer.json.Attempts, 1);
      assert.match(answer.json.StartedDate, iso);
      assert.equal(answer.json.FinishedDate, null);
      assert.equal(answer.headers.get('location'), `/api/GetAction/${answer.json.ID}`);
      const done = await pollUntilDone(app, answer.json.ID);
      assert.equal(done.json.Status, 'Complete', done.text);
      assert.equal(done.json.Statistics.Read, request.read);
    }
    const ready = await app.get('/readyz', null);
    assert.equal(ready.json.queue.Complete, 2);
    assert.equal(ready.json.queue.InProgress, 0);
  });
});

describe('/readyz and the queue', () => {
  let app: HttpApp;
  /** A daemon registered on the app's runtime database, as another process's daemon would be. */
  const daemon = {
    id: 'worker-host:4242:daemon:0a1b2c3d',
    host: 'worker-host',
    pid: 4242,
    version: '0.0.0-test',
    command: 'daemon' as const,
    concurrency: 4,
    startedAt: new Date(Date.now() - 60_000),
  };
  const beat = new Date();
  before(async () => {
    app = await quickstartApp();
    await upsertDaemon(app.db, daemon, { running: 1, now: beat, expiresAt: new Date(beat.getTime() + 3_600_000) });
  });
  after(() => app.close());

  const daemons = {
    count: 1,
    list: [
      {
        id: daemon.id,
        host: 'worker-host',
        command: 'daemon',
        startedAt: daemon.startedAt.toISOString(),
        lastHeartbeat: beat.toISOString(),
        running: 1,
        concurrency: 4,
      },
    ],
  };

  it('shows the items by status, the next due item and the daemons of the cluster', async () => {
    const empty = await app.get('/readyz', null);
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.json.queue, { Pending: 0, InProgress: 0, Complete: 0, Failed: 0, nextDue: null, daemon: 'active', daemons });
    const first = await app.post(`/api/StartProcessAdHoc/${syncId}/1`);
    await app.post(`/api/StartProcessAdHoc/${syncId}/2`);
    await app.post(`/api/ExecuteProcess/${syncId}`, { StartType: 'manual' });
    const ready = await app.get('/readyz', null);
    assert.deepEqual(ready.json.queue, {
      Pending: 2,
      InProgress: 0,
      Complete: 1,
      Failed: 0,
      nextDue: first.json.CreatedDate,
      daemon: 'active',
      daemons,
    });
  });

  it('answers 503 with the reason, and no stack, when the runtime database does not answer', async () => {
    await app.db.close();
    const answer = await app.get('/readyz', null);
    assert.equal(answer.status, 503, answer.text);
    assert.equal(answer.json.status, 'unready');
    assert.equal(answer.json.reason, 'the runtime database does not answer: the connection pool is closed');
    assert.doesNotMatch(answer.text, /\n\s+at |node_modules|select |\.sqlite|queue_items/i);
    assert.ok(answer.json.snapshot.digest, 'the definitions are still described');
  });
});
