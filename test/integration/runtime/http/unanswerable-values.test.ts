/**
 * A record whose Json value JSON text cannot carry whole — nested thousands of levels deep, past
 * where JSON.stringify's recursion fails — read through the API or a webhook: a 422 problem naming
 * where the value goes wrong, logged and counted with that status, instead of a bare 500 the
 * request log recorded as 200. A long read streamed past its first pages cannot change its status
 * any more: it breaks off unfinished, and is logged as the server error it is, not as a client
 * that hung up. A write of a number JSON text has no spelling for (1e400) is a 400, not a null.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import knexFactory, { type Knex } from 'knex';
import { quickstartApp, type HttpApp } from '../../../support/http-app.js';

const levels = 8000;
const deep = `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const webhook = 'wh_readDeepDocuments001';
/** Read pages hold 500 records (the sql connector's page): the deep record on the third page. */
const lateId = 1200;

describe('a record value JSON text cannot carry, answered', () => {
  let dir: string;
  let docs: Knex;
  let app: HttpApp;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'syncline-deep-'));
    const file = join(dir, 'docs.sqlite');
    docs = knexFactory({ client: 'sqlite3', connection: { filename: file }, useNullAsDefault: true });
    await docs.schema.createTable('docs', (table) => {
      table.integer('id').primary();
      table.integer('shelf');
      table.text('payload');
    });
    const rows = Array.from({ length: 1500 }, (_, index) => ({ id: index + 1, shelf: 2, payload: '{"v":1}' }));
    rows.push({ id: 5000, shelf: 1, payload: deep });
    rows[lateId - 1] = { id: lateId, shelf: 2, payload: deep };
    for (let at = 0; at < rows.length; at += 100) await docs('docs').insert(rows.slice(at, at + 100));
    app = await quickstartApp({
      files: {
        'docs.yaml': `kind: System
id: docs
connector: sql
connection: { client: sqlite3, filename: ${JSON.stringify(file)} }
objects:
  Doc:
    table: docs
    key: [id]
    fields:
      id: { type: Integer }
      shelf: { type: Integer }
      payload: { type: Json }
---
kind: Webhook
id: ${webhook}
action: readWithSystem
system: docs
object: Doc
search: "id = #id#"
responseSchema: { type: array }
`,
      },
    });
  });
  after(async () => {
    await app?.close();
    await docs?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const assertUnanswerable = (answer: { status: number; type: string; json: any; text: string }) => {
    assert.equal(answer.status, 422, answer.text.slice(0, 500));
    assert.equal(answer.type, 'application/problem+json');
    assert.equal(answer.json.type, 'urn:syncline:problem:unanswerable-value');
    assert.match(answer.json.detail, /payload(\.a)*….a\.a is nested more than 1000 levels deep/);
  };

  it('GetDataObject and RunConnectionGetData answer 422 naming the value, and the request log says 422', async () => {
    assertUnanswerable(await app.get('/api/GetDataObject/docs/Doc/5000'));
    assertUnanswerable(await app.post('/api/RunConnectionGetData/docs/Doc', [{ name: 'GETDATA_ID', value: 5000 }]));
    const statuses = app.logs.filter((line) => line.msg === 'request' && /GetDataObject|RunConnectionGetData\//.test(String(line.route)));
    assert.ok(statuses.length >= 2, JSON.stringify(app.logs.slice(-5)));
    for (const line of statuses) assert.equal(line.status, 422, JSON.stringify(line));
    // Other records of the object still read.
    const ok = await app.get('/api/GetDataObject/docs/Doc/7');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json.record, { id: 7, shelf: 2, payload: { v: 1 } });
  });

  it('RunConnectionGetDataMin: in its first pages a 422; further on, an answer broken off unfinished and logged as a 500', async () => {
    assertUnanswerable(await app.post('/api/RunConnectionGetDataMin/docs/Doc', [{ name: 'GETDATA_WHERE', value: 'shelf = 1' }]));
    const before = app.logs.length;
    const response = await fetch(`${app.base}/api/RunConnectionGetDataMin/docs/Doc`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${(await import('../../../support/http-app.js')).tokens.admin}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify([{ name: 'GETDATA_WHERE', value: 'shelf = 2' }]),
    });
    assert.equal(response.status, 200);
    await assert.rejects(response.text(), 'the body breaks off');
    // The request's log line is written once the connection closed.
    for (let wait = 0; wait < 50 && !app.logs.slice(before).some((line) => line.status !== undefined); wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lines = app.logs.slice(before);
    assert.ok(
      lines.some((line) => /nested more than 1000 levels deep/.test(line.msg)),
      JSON.stringify(lines.map((line) => line.msg)),
    );
    assert.deepEqual(
      lines.filter((line) => line.status !== undefined).map((line) => line.status),
      [500],
    );
  });

  it('a free query answering the value is a 422 naming it, not a 16 KB row called over the size limit', async () => {
    const answer = await app.post('/api/RunConnectionGetQueryData/docs', {
      columns: [
        { Name: 'id', ColumnType: 'Integer' },
        { Name: 'payload', ColumnType: 'Json' },
      ],
      Statement: 'SELECT id, payload FROM docs WHERE id = 5000',
    });
    assert.equal(answer.status, 422, answer.text.slice(0, 500));
    assert.equal(answer.json.type, 'urn:syncline:problem:unanswerable-value', answer.text.slice(0, 500));
    assert.match(answer.json.detail, /records\[0\]\.payload(\.a)*….a\.a is nested more than 1000 levels deep/);
  });

  it('a readWithSystem webhook answers 422 and logs its call with that status', async () => {
    const answer = await app.post(`/api/webhooks/${webhook}`, { id: 5000 }, null);
    assertUnanswerable(answer);
    const log = await app.get(`/api/console/webhooks/${webhook}/log`);
    assert.equal(log.status, 200, log.text);
    assert.equal(log.json.entries[0].status, 422, JSON.stringify(log.json.entries[0]).slice(0, 500));
  });

  it('a write of a Json value holding 1e400 is a 400 naming where, and nothing is stored', async () => {
    const answer = await app.call('POST', '/api/RunConnectionSetDataMin/docs/Doc', {
      raw: '{"id":9001,"payload":{"v":[1,1e400]}}',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(answer.status, 400, answer.text);
    // Refused as the body is read; a value reaching the write otherwise (a source record) is
    // refused there (test/integration/runtime/sync/unwritable-json.test.ts).
    assert.match(answer.json.detail, /The number 1e400 \(at \/payload\/v\/1\) is past the range of a JSON number/);
    assert.equal(await docs('docs').where({ id: 9001 }).first(), undefined);
  });
});
