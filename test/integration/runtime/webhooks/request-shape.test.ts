/**
 * Request bodies that are JSON but not an object — an array, a string, a number, a boolean,
 * null — sent to every webhook action over HTTP, on every engine: an action that reads request
 * fields answers 400 naming what to send (never a 204 "nothing found", never a write), also when
 * a condition would have read every field as null; saveWithSync takes an array of records but no
 * scalar; startSync passes a scalar as the parameter `Data`, but the record store wants objects.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fromJsonColumn } from '../../../../runtime/database/column-values.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type Answer, type HttpApp } from '../../../support/http-app.js';

const ids = {
  readSystem: 'wh_shapeReadSystem0001',
  readQuerySystem: 'wh_shapeReadQuery00001',
  readSync: 'wh_shapeReadSync000001',
  readQuerySync: 'wh_shapeReadQuerySync1',
  saveSystem: 'wh_shapeSaveSystem0001',
  saveSync: 'wh_shapeSaveSync000001',
  startParams: 'wh_shapeStartParams001',
  startStore: 'wh_shapeStartStore0001',
} as const;

const files = {
  'shape.yaml': `kind: Sync
id: shape-read
source: { system: crm, object: Customer, order: id asc }
target: { system: erp, object: Account }
mapping: '{ "AccountName": name, "Email": email }'
webhookTypes: [read]
---
kind: Sync
id: shape-read-query
source: { system: crm, query: activeCustomersByCity }
target: { system: erp, object: Account }
mapping: '{ "AccountName": name }'
webhookTypes: [readQuery]
---
kind: Sync
id: shape-save
source: { system: crm, object: Customer }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "S-" & $string(id), "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#" }
webhookTypes: [write]
---
kind: Sync
id: shape-store
source: { recordStore: true }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": id, "AccountName": name }'
---
kind: Webhook
id: ${ids.readSystem}
action: readWithSystem
system: crm
object: Customer
search: "email = #email#"
condition: "#email# IS NULL OR #email# <> 'blocked@example.com'"
responseSchema: { type: array }
---
kind: Webhook
id: ${ids.readQuerySystem}
action: readQueryWithSystem
system: crm
query: activeCustomersByCity
queryFilter: "city = #city#"
---
kind: Webhook
id: ${ids.readSync}
action: readWithSync
sync: shape-read
search: "email = #email#"
---
kind: Webhook
id: ${ids.readQuerySync}
action: readQueryWithSync
sync: shape-read-query
queryFilter: "city = #city#"
---
kind: Webhook
id: ${ids.saveSystem}
action: saveWithSystem
system: erp
object: Account
writeMapping: '{ "AccountNumber": number, "AccountName": name }'
---
kind: Webhook
id: ${ids.saveSync}
action: saveWithSync
sync: shape-save
---
kind: Webhook
id: ${ids.startParams}
action: startSync
sync: crm-customers-to-erp
---
kind: Webhook
id: ${ids.startStore}
action: startSync
sync: shape-store
recordStore: true
`,
};

/** JSON bodies that are no object, as sent. */
const notObjects: ReadonlyArray<[string, string]> = [
  ['an array', '[{"email": "ada@example.com", "city": "London", "number": "A-1", "name": "Ada"}]'],
  ['an empty array', '[]'],
  ['a string', '"ada@example.com"'],
  ['a number', '42'],
  ['a boolean', 'true'],
  ['null', 'null'],
];

function assertRefused(answer: Answer, webhookId: string, what: string): void {
  assert.equal(answer.status, 400, `${webhookId} with ${what}: ${answer.text}`);
  assert.equal(answer.type, 'application/problem+json');
  assert.equal(answer.json.type, 'urn:syncline:problem:invalid-request');
  assert.match(answer.json.detail, /JSON object/, answer.text);
  assert.deepEqual(answer.json.errors, [{ path: '', message: answer.json.errors[0].message }]);
  assert.match(answer.json.errors[0].message, /^expected a JSON object, not (an array|a string|a number|a boolean|null)$/);
}

await describeEachDatabase('webhook request data that is not an object', (database) => {
  describe('every action', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), { files });
    });
    after(() => app.close());

    const send = (webhookId: string, raw: string) =>
      app.call('POST', `/api/webhooks/${webhookId}`, { token: null, raw, headers: { 'content-type': 'application/json' } });
    const count = async (table: string) =>
      Number(((await database().admin(table).count({ n: '*' })) as Array<{ n: number | string }>)[0]!.n);

    it('the actions that read request fields answer 400 naming what to send, and write nothing', async () => {
      const before = { accounts: await count('accounts'), items: await count('queue_items') };
      for (const webhookId of [ids.readSystem, ids.readQuerySystem, ids.readSync, ids.readQuerySync, ids.saveSystem]) {
        for (const [what, raw] of notObjects) assertRefused(await send(webhookId, raw), webhookId, what);
      }
      const save = await send(ids.saveSystem, '[{"number": "A-1", "name": "Ada"}]');
      assert.match(
        save.json.detail,
        /saveWithSystem writes one record: send it as one JSON object \(several records are written by saveWithSync\)/,
      );
      const read = await send(ids.readSystem, '"x"');
      assert.match(read.json.detail, /readWithSystem takes request values from the fields of one JSON object/);
      assert.deepEqual({ accounts: await count('accounts'), items: await count('queue_items') }, before);
    });

    it('the same data as an object is served', async () => {
      const read = await send(ids.readSystem, '{"email": "ada@example.com"}');
      assert.ok(read.status === 200 || read.status === 204, read.text);
      const saved = await send(ids.saveSystem, '{"number": "SHAPE-1", "name": "Shape One"}');
      assert.equal(saved.status, 204, saved.text);
      assert.equal(
        await database()
          .admin('accounts')
          .where({ AccountNumber: 'SHAPE-1' })
          .count({ n: '*' })
          .then((rows) => Number((rows as Array<{ n: number | string }>)[0]!.n)),
        1,
      );
      // An empty body is an empty object: a ping, served.
      const ping = await app.call('POST', `/api/webhooks/${ids.readSystem}`, {
        token: null,
        raw: '',
        headers: { 'content-type': 'application/json' },
      });
      assert.ok(ping.status === 200 || ping.status === 204, ping.text);
    });

    it('the shape is judged before the condition, which would read every field of an array as null', async () => {
      // The condition is true for a missing email: without the shape check the array would be read.
      assertRefused(await send(ids.readSystem, '[{"email": "blocked@example.com"}]'), ids.readSystem, 'an array');
      const log = await app.get(`/api/console/webhooks/${ids.readSystem}/log?limit=1`);
      const entry = await app.get(`/api/console/webhooks/${ids.readSystem}/log/${log.json.entries[0].id}`);
      assert.equal(entry.json.status, 400);
      assert.ok(!entry.json.ticker.some((message: { kind: string }) => message.kind === 'condition'), 'the condition did not run');
    });

    it('saveWithSync takes an array of records, not a scalar; startSync passes a scalar as Data, but the record store wants objects', async () => {
      for (const [what, raw] of notObjects.filter(([name]) => !name.includes('array'))) {
        const answer = await send(ids.saveSync, raw);
        assert.equal(answer.status, 400, `${what}: ${answer.text}`);
        assert.match(answer.json.detail, /must be a JSON object/);
        const stored = await send(ids.startStore, raw);
        assert.equal(stored.status, 400, `${what}: ${stored.text}`);
      }
      const saved = await send(ids.saveSync, '[{"id": 901, "name": "Shape Sync"}]');
      assert.equal(saved.status, 200, saved.text);
      assert.equal(saved.json.statistics.created, 1);
      const started = await send(ids.startParams, '"just text"');
      assert.equal(started.status, 200, started.text);
      const row = await app.db.knex('queue_items').where({ id: started.json.ID }).first();
      assert.deepEqual(fromJsonColumn(row.action_params), [{ Name: 'Data', Value: 'just text' }]);
    });
  });
});
