/**
 * NUL (U+0000) in API request text, on every engine as the runtime database: refused with 400
 * naming the field — in a path parameter of every route, a query parameter, any string or property
 * name of a JSON body — and nothing enqueued or read. On PostgreSQL such text used to reach the
 * runtime database and fail there with 500. Webhook data may hold NUL: it is data, kept as JSON.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type Answer, type HttpApp } from '../../../support/http-app.js';

const sync = 'crm-customers-to-erp';
const webhook = 'wh_crmCustomerChanged01';
const secret = { service_webhooksecret: 'quickstart-webhook-secret' };
const uuid = '00000000-0000-4000-8000-000000000001';

function assertRefused(answer: Answer, path: string): void {
  assert.equal(answer.status, 400, `${path}: ${answer.text}`);
  assert.equal(answer.type, 'application/problem+json');
  assert.deepEqual(
    answer.json.errors.map((error: { path: string }) => error.path),
    [path],
  );
  assert.match(answer.json.detail, /NUL character/);
}

await describeEachDatabase('NUL in API requests', (database) => {
  let app: HttpApp;
  before(async () => {
    app = await engineApp(database());
  });
  after(() => app.close());

  const items = async () => Number((await app.db.knex('queue_items').count({ n: '*' }).first())?.n);

  describe('in JSON bodies', () => {
    it('a WhereClause, SourceId, ActionParams value or property name with NUL is refused by its JSON pointer, and nothing is enqueued', async () => {
      const before = await items();
      const start = { ProcessId: sync, StartType: 'manual' };
      assertRefused(await app.post('/api/AddAction', { ...start, WhereClause: "name = 'a\u0000b'" }), '/WhereClause');
      assertRefused(await app.post('/api/AddAction', { ...start, StartType: 'AdHoc', SourceId: '1\u0000' }), '/SourceId');
      assertRefused(
        await app.post('/api/AddAction', { ...start, ActionParams: [{ Name: 'id', Value: '\u00007' }] }),
        '/ActionParams/0/Value',
      );
      assertRefused(await app.post('/api/AddAction', { ...start, 'Where\u0000Clause': 'x' }), '/Where\u0000Clause');
      assertRefused(await app.post(`/api/ExecuteProcess/${sync}`, { StartType: 'manual', WhereClause: 'id = 1\u0000' }), '/WhereClause');
      assert.equal(await items(), before);
    });

    it('a read filter, a write value and a console test pin with NUL are refused', async () => {
      assertRefused(
        await app.post('/api/RunConnectionGetData/crm/Customer', [{ name: 'GETDATA_WHERE', value: "name = 'Ada\u0000'" }]),
        '/0/value',
      );
      assertRefused(
        await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'N-1', AccountName: 'x\u0000y' }),
        '/AccountName',
      );
      assert.equal(await app.erp('accounts').where({ AccountNumber: 'N-1' }).first(), undefined);
      assertRefused(await app.post(`/api/console/webhooks/${webhook}/test`, { pin: 'a\u0000' }), '/pin');
    });
  });

  describe('in the path and the query', () => {
    it('every route refuses a path parameter with %00 by its name', async () => {
      const before = await items();
      const cases: Array<[method: string, path: string, field: string]> = [
        ['POST', `/api/StartProcessAdHoc/${sync}/1%00`, 'path.sourceId'],
        ['POST', `/api/StartProcessAdHoc/x%00/1`, 'path.syncId'],
        ['POST', `/api/StartProcessDirect/${sync}/1%00`, 'path.sourceId'],
        ['POST', `/api/ExecuteProcess/${sync}%00`, 'path.syncId'],
        ['GET', `/api/GetAction/${uuid}%00`, 'path.queueId'],
        ['GET', '/api/GetDataObject/crm/Customer/1%00', 'path.key'],
        ['POST', '/api/RunConnectionGetData/crm%00/Customer', 'path.system'],
        ['POST', '/api/RunConnectionGetDataMin/crm/Customer%00', 'path.object'],
        ['POST', '/api/RunConnectionGetQueryData/crm%00', 'path.system'],
        ['GET', `/api/console/webhooks/${webhook}/log/1%00`, 'path.entryId'],
        ['POST', `/api/console/webhooks/${webhook}/log/1%00/pin`, 'path.entryId'],
        ['DELETE', `/api/console/webhooks/${webhook}/log/1%00/pin`, 'path.entryId'],
        ['POST', `/api/console/webhooks/${webhook}/log/1%00/replay`, 'path.entryId'],
        ['GET', `/api/console/webhooks/${webhook}%00/log`, 'path.webhookId'],
      ];
      for (const [method, path, field] of cases) assertRefused(await app.call(method, path), field);
      assert.equal(await items(), before);
    });

    it('a query parameter with %00 is refused by its name, and so is a log cursor that hides one', async () => {
      assertRefused(await app.get(`/api/console/webhooks/${webhook}/log?limit=1%00`), 'query.limit');
      const cursor = Buffer.from(JSON.stringify(['2030-01-01T00:00:00.000Z', 'a\u0000'])).toString('base64url');
      const answer = await app.get(`/api/console/webhooks/${webhook}/log?cursor=${cursor}`);
      assert.equal(answer.status, 400, answer.text);
      assert.deepEqual(
        answer.json.errors.map((error: { path: string }) => error.path),
        ['query.cursor'],
      );
    });
  });

  it('a webhook takes data with NUL as it came and its log keeps it', async () => {
    const data = { id: 1, event: 'customer.updated', note: 'a\u0000b' };
    const answer = await app.call('POST', `/api/webhooks/${webhook}`, { token: null, body: data, headers: secret });
    assert.equal(answer.status, 200, answer.text);
    const entries = (await app.get(`/api/console/webhooks/${webhook}/log?limit=1`)).json.entries;
    const entry = await app.get(`/api/console/webhooks/${webhook}/log/${entries[0].id}`);
    assert.deepEqual(entry.json.payload.data, data);
  });
});
