/**
 * A `file` System served by the runtime, used only through its public interface: the six
 * connection routes on a CSV object (the free query answered 422 naming the capability), a sync
 * from a drop folder of CSV files into the quickstart's SQLite ERP that archives what it read
 * (and not after a failed record, a failed run, a WhereClause or an HTTP read), a sync from the
 * quickstart's SQLite CRM into a CSV file, and a webhook saving into a file object.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { quickstartApp, type Answer, type HttpApp } from '../../../support/http-app.js';

type Record = { [field: string]: any };

const definitions = `
kind: System
id: files
connector: file
connection: { directory: files }
objects:
  Contact:
    path: contacts.csv
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String, required: true }
      email: { type: String }
      city: { type: String }
  Order:
    path: inbox/orders-*.csv
    key: [number]
    fields:
      number: { type: String }
      email: { type: String }
      total: { type: Number }
    archive: { moveTo: done }
  Export:
    path: exports/customers.csv
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
      email: { type: String }
      active: { type: Boolean }
      updated_at: { type: DateTime }
    groups:
      addresses:
        types: [main, invoice]
        fields:
          city: { type: String }
          country: { type: String }
---
kind: Sync
id: orders-to-erp
source: { system: files, object: Order }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "O-" & number, "AccountName": email, "Email": email }'
match: { where: "AccountNumber = #AccountNumber#" }
retries: { max: 0 }
---
kind: Sync
id: one-order-to-erp
source: { system: files, object: Order, where: "number = #params.Number#" }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "O-" & number, "AccountName": email, "Email": email }'
match: { where: "AccountNumber = #AccountNumber#" }
retries: { max: 0 }
---
kind: Sync
id: crm-to-file
source: { system: crm, object: Customer }
target: { system: files, object: Export }
mapping: |
  {
    "id": id, "name": name, "email": email, "active": active, "updated_at": updated_at,
    "addresses": { "main": addresses.main ? { "city": addresses.main.city, "country": addresses.main.country } }
  }
match: { where: "id = #id#" }
---
kind: Webhook
id: wh_fileContactSave01
action: saveWithSystem
system: files
object: Contact
writeMapping: '{ "name": name, "email": email, "city": city }'
targetSearch: "email = #email#"
onNoMatch: create
onMatch: update
resultMapping: '{ "id": id, "name": name, "action": $action }'
`;

function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.json.type, `urn:syncline:problem:${code}`, answer.text);
  if (detail) assert.match(answer.json.detail, detail);
}

const read = (name: string, value: string | number) => ({ name, value });

describe('a file System served by the runtime', () => {
  let app: HttpApp;
  let files: string;
  const csv = (path: string) =>
    parse(readFileSync(join(files, path), 'utf8'), {
      columns: true,
      cast: (value, context) => (value === '' && !context.quoting ? null : value),
    }) as Record[];
  const execute = (syncId: string, body: Record = { StartType: 'manual' }) => app.post(`/api/ExecuteProcess/${syncId}`, body);
  const drop = (name: string, rows: string[]) => writeFileSync(join(files, 'inbox', name), `number,email,total\n${rows.join('\n')}\n`);

  before(async () => {
    app = await quickstartApp({ files: { 'files.yaml': definitions } });
    files = join(app.definitions, 'files');
    mkdirSync(join(files, 'inbox'), { recursive: true });
  });
  after(() => app.close());

  describe('the connection routes on a CSV object', () => {
    it('RunConnectionSetDataMin creates records, the key generated as the largest plus one', async () => {
      const first = await app.post('/api/RunConnectionSetDataMin/files/Contact', { name: 'Ada', email: 'ada@example.com', city: 'London' });
      assert.deepEqual([first.status, first.json], [201, { action: 'created', key: { id: 1 } }]);
      const second = await app.post('/api/RunConnectionSetDataMin/files/Contact', { id: 10, name: 'Grace', email: '', city: null });
      assert.deepEqual([second.status, second.json], [201, { action: 'created', key: { id: 10 } }]);
      const third = await app.post('/api/RunConnectionSetDataMin/files/Contact', { name: 'Alan', email: 'alan@example.com' });
      assert.deepEqual(third.json, { action: 'created', key: { id: 11 } });
      assert.equal(
        readFileSync(join(files, 'contacts.csv'), 'utf8'),
        'id,name,email,city\n1,Ada,ada@example.com,London\n10,Grace,"",\n11,Alan,alan@example.com,\n',
      );
    });

    it('RunConnectionSetData updates by idcolumns and creates without them', async () => {
      const updated = await app.post('/api/RunConnectionSetData/files/Contact', {
        columns: [{ name: 'city', columnType: 'String', value: 'Cambridge' }],
        idcolumns: [{ name: 'email', columnType: 'String', value: 'alan@example.com' }],
      });
      assert.deepEqual([updated.status, updated.json], [200, { action: 'updated', key: { id: 11 } }]);
      const created = await app.post('/api/RunConnectionSetData/files/Contact', {
        columns: [
          { name: 'name', columnType: 'String', value: 'Barbara' },
          { name: 'city', columnType: 'String', value: 'Boston' },
        ],
      });
      assert.deepEqual([created.status, created.json], [201, { action: 'created', key: { id: 12 } }]);
      assertProblem(
        await app.post('/api/RunConnectionSetData/files/Contact', { columns: [{ name: 'id', columnType: 'Integer', value: 'x' }] }),
        400,
        'invalid-value',
      );
    });

    it('RunConnectionGetData filters, orders and pages in memory, with the total of the filter', async () => {
      const answer = await app.post('/api/RunConnectionGetData/files/Contact', [
        read('GETDATA_WHERE', "city IS NOT NULL OR email = ''"),
        read('GETDATA_ORDER', 'name desc'),
        read('GETDATA_LIMIT', 2),
        read('GETDATA_SKIP', 1),
      ]);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.total, 4);
      assert.deepEqual(
        answer.json.records.map((record: Record) => record.name),
        ['Barbara', 'Alan'],
      );
      assert.deepEqual(answer.json.key, ['id']);
    });

    it('RunConnectionGetDataMin answers the records as an array, in file order', async () => {
      const answer = await app.post('/api/RunConnectionGetDataMin/files/Contact', []);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, [
        { id: 1, name: 'Ada', email: 'ada@example.com', city: 'London' },
        { id: 10, name: 'Grace', email: '', city: null },
        { id: 11, name: 'Alan', email: 'alan@example.com', city: 'Cambridge' },
        { id: 12, name: 'Barbara', email: null, city: 'Boston' },
      ]);
      assertProblem(
        await app.post('/api/RunConnectionGetDataMin/files/Contact', [read('GETDATA_WHERE', 'planet = 1')]),
        400,
        'unknown-field',
      );
    });

    it('GetDataObject reads one record by key, 404 when there is none', async () => {
      const answer = await app.get('/api/GetDataObject/files/Contact/11');
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json.record, { id: 11, name: 'Alan', email: 'alan@example.com', city: 'Cambridge' });
      assertProblem(await app.get('/api/GetDataObject/files/Contact/99'), 404, 'record-not-found');
    });

    it('RunConnectionGetQueryData is answered 422, naming the capability the file connector lacks', async () => {
      const answer = await app.post('/api/RunConnectionGetQueryData/files', {
        columns: [{ Name: 'id', ColumnType: 'Integer' }],
        Statement: 'SELECT id FROM contacts',
      });
      assertProblem(answer, 422, 'unsupported', /readOnlyQuery/);
      assert.match(answer.json.detail, /file connector of system files/);
    });

    it('a write to a glob object is refused as read-only, saying why', async () => {
      const answer = await app.post('/api/RunConnectionSetDataMin/files/Order', { number: '1', email: 'x@example.com' });
      assertProblem(answer, 403, 'read-only', /glob .*writes need path to name one file/);
    });
  });

  describe('a sync from a drop folder of CSV files into SQLite, archiving what it read', () => {
    const accounts = async () => (await app.erp('accounts').where('AccountNumber', 'like', 'O-%').orderBy('AccountNumber')) as Record[];
    const inbox = () => readdirSync(join(files, 'inbox')).sort();
    const done = () => (existsSync(join(files, 'done')) ? readdirSync(join(files, 'done')).sort() : []);

    it('an HTTP read and a run with a WhereClause leave the files where they are', async () => {
      drop('orders-1.csv', ['1,one@example.com,10.5', '2,two@example.com,20']);
      drop('orders-2.csv', ['3,three@example.com,30']);
      const answer = await app.post('/api/RunConnectionGetDataMin/files/Order', []);
      assert.deepEqual(
        answer.json.map((record: Record) => record.number),
        ['1', '2', '3'],
      );
      const filtered = await execute('orders-to-erp', { StartType: 'manual', WhereClause: "number = '1'" });
      assert.equal(filtered.json.Status, 'Complete', filtered.text);
      assert.deepEqual(filtered.json.Statistics, { Read: 1, Created: 1, Updated: 0, Skipped: 0, Failed: 0, Unchanged: 0 });
      assert.deepEqual(inbox(), ['orders-1.csv', 'orders-2.csv']);
      assert.deepEqual(done(), []);
    });

    it('a sync whose where reads #params.…# leaves the files, with ActionParams or without', async () => {
      const without = await execute('one-order-to-erp');
      assert.equal(without.json.Status, 'Complete', without.text);
      assert.equal(without.json.Statistics.Read, 0);
      const given = await execute('one-order-to-erp', { StartType: 'manual', ActionParams: [{ Name: 'Number', Value: '1' }] });
      assert.deepEqual(given.json.Statistics, { Read: 1, Created: 0, Updated: 0, Skipped: 1, Failed: 0, Unchanged: 1 }, given.text);
      assert.deepEqual(inbox(), ['orders-1.csv', 'orders-2.csv']);
      assert.deepEqual(done(), []);
    });

    it('a Complete run without failed records moves every file it read to the archive', async () => {
      const run = await execute('orders-to-erp');
      assert.equal(run.json.Status, 'Complete', run.text);
      assert.deepEqual(run.json.Statistics, { Read: 3, Created: 2, Updated: 0, Skipped: 1, Failed: 0, Unchanged: 1 });
      assert.deepEqual(
        (await accounts()).map((account) => [account.AccountNumber, account.Email]),
        [
          ['O-1', 'one@example.com'],
          ['O-2', 'two@example.com'],
          ['O-3', 'three@example.com'],
        ],
      );
      assert.deepEqual(inbox(), []);
      assert.deepEqual(done(), ['orders-1.csv', 'orders-2.csv']);
    });

    it('a run with a failed record leaves its files, to be read again once fixed; a name taken in the archive gets a suffix', async () => {
      drop('orders-1.csv', ['4,four@example.com,40', '5,,50']);
      const run = await execute('orders-to-erp');
      assert.equal(run.json.Status, 'Complete', run.text);
      assert.equal(run.json.Statistics.Failed, 1);
      assert.match(run.json.Errors[0].Message, /AccountName/);
      assert.deepEqual(inbox(), ['orders-1.csv']);
      drop('orders-1.csv', ['4,four@example.com,40', '5,five@example.com,50']);
      const again = await execute('orders-to-erp');
      assert.deepEqual(again.json.Statistics, { Read: 2, Created: 1, Updated: 0, Skipped: 1, Failed: 0, Unchanged: 1 });
      assert.deepEqual(inbox(), []);
      assert.deepEqual(done(), ['orders-1.1.csv', 'orders-1.csv', 'orders-2.csv']);
      assert.match(readFileSync(join(files, 'done', 'orders-1.1.csv'), 'utf8'), /five@example\.com/);
    });

    it('a failed run leaves every file, the good ones too', async () => {
      drop('orders-6.csv', ['6,six@example.com,60']);
      writeFileSync(join(files, 'inbox', 'orders-7.csv'), 'number,email,total\n7,"seven@example.com,70\n');
      const run = await execute('orders-to-erp');
      assert.equal(run.json.Status, 'Failed', run.text);
      assert.match(run.json.Errors[0].Message, /file inbox\/orders-7\.csv line 2: not valid CSV: a quoted cell is not closed/);
      assert.doesNotMatch(run.json.Errors[0].Message, /seven/);
      assert.deepEqual(inbox(), ['orders-6.csv', 'orders-7.csv']);
    });
  });

  describe('a sync from SQLite into a CSV file', () => {
    it('writes the customers with their typed groups as columns, and updates what changed on the next run', async () => {
      const run = await execute('crm-to-file');
      assert.equal(run.json.Status, 'Complete', run.text);
      assert.equal(run.json.Statistics.Created, 6);
      const rows = csv('exports/customers.csv');
      assert.deepEqual(Object.keys(rows[0]!), [
        'id',
        'name',
        'email',
        'active',
        'updated_at',
        'addresses.main.city',
        'addresses.main.country',
        'addresses.invoice.city',
        'addresses.invoice.country',
      ]);
      const customers = (await app.crm('customers').orderBy('id')) as Record[];
      assert.deepEqual(
        rows.map((row) => [Number(row.id), row.name, row.active]),
        customers.map((customer) => [customer.id, customer.name, customer.active ? 'true' : 'false']),
      );
      assert.equal(rows[0]!['addresses.main.city'], 'London');
      await app.crm('customers').where({ id: 1 }).update({ name: 'Ada King' });
      const again = await execute('crm-to-file');
      // Only Ada changed; the other rows already hold their values and are left as they are.
      assert.deepEqual(again.json.Statistics, { Read: 6, Created: 0, Updated: 1, Skipped: 5, Failed: 0, Unchanged: 5 });
      const after = csv('exports/customers.csv');
      assert.equal(after.length, 6);
      assert.equal(after[0]!.name, 'Ada King');
    });
  });

  describe('a webhook saving into a file object', () => {
    it('creates, then updates the record its target search finds, answering through the result mapping', async () => {
      const call = (body: Record) => app.call('POST', '/api/webhooks/wh_fileContactSave01', { token: null, body });
      const created = await call({ name: 'Hedy', email: 'hedy@example.com', city: 'Vienna' });
      assert.equal(created.status, 200, created.text);
      assert.deepEqual(created.json, { id: 13, name: 'Hedy', action: 'created' });
      const updated = await call({ name: 'Hedy Lamarr', email: 'hedy@example.com', city: 'Vienna' });
      assert.deepEqual(updated.json, { id: 13, name: 'Hedy Lamarr', action: 'updated' });
      assert.deepEqual(
        csv('contacts.csv').filter((row) => row.email === 'hedy@example.com'),
        [{ id: '13', name: 'Hedy Lamarr', email: 'hedy@example.com', city: 'Vienna' }],
      );
    });
  });
});
