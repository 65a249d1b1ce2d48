/**
 * The six connection endpoints over HTTP, success and error paths: on the quickstart (SQLite files
 * made from its data/*.sql), and the basics of reading, writing and querying on every engine of
 * test/support/databases.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase, type Engine } from '../../../support/databases.js';
import { engineApp, engineConnection, quickstartApp, tableContents, tokens, type Answer, type HttpApp } from '../../../support/http-app.js';

type Record = { [field: string]: any };

const ids = (answer: Answer): number[] => (answer.json as Record[]).map((record) => record.id as number);
const read = (name: string, value: string | number) => ({ name, value });

function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.type, 'application/problem+json');
  assert.equal(answer.json.type, `urn:syncline:problem:${code}`, answer.text);
  assert.equal(answer.json.status, status);
  if (detail) assert.match(answer.json.detail, detail);
}

describe('connection routes on the quickstart', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp();
  });
  after(() => app.close());

  describe('RunConnectionGetDataMin', () => {
    it('answers a bare array of records in key order with groups as direct properties', async () => {
      const answer = await app.post('/api/RunConnectionGetDataMin/crm/Customer', []);
      assert.equal(answer.status, 200);
      assert.equal(answer.type, 'application/json');
      assert.deepEqual(ids(answer), [1, 2, 3, 4, 5, 6]);
      const ada = answer.json[0] as Record;
      assert.deepEqual(Object.keys(ada).sort(), ['active', 'addresses', 'email', 'id', 'name', 'updated_at']);
      assert.equal(ada.name, 'Ada Lovelace');
      assert.equal(ada.active, true);
      assert.match(ada.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(ada.addresses, {
        main: { street: "12 St James's Square", city: 'London', zip: 'SW1Y 4JH', country: 'GB' },
        invoice: { street: '1 Analytical Row', city: 'London', zip: 'EC1A 1BB', country: 'GB' },
      });
      assert.deepEqual(answer.json[2].addresses, {}, 'a customer without addresses has an empty group');
      assert.equal(answer.json[2].active, false);
    });

    it('reads everything without a body, with an empty body and with an empty array', async () => {
      for (const options of [{}, { raw: '', headers: { 'content-type': 'application/json' } }, { body: [] }]) {
        const answer = await app.call('POST', '/api/RunConnectionGetDataMin/crm/Customer', options);
        assert.equal(answer.status, 200, answer.text);
        assert.deepEqual(ids(answer), [1, 2, 3, 4, 5, 6]);
      }
    });

    it('pages with GETDATA_LIMIT and GETDATA_SKIP', async () => {
      assert.deepEqual(
        ids(await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_LIMIT', '2'), read('GETDATA_SKIP', '1')])),
        [2, 3],
      );
      assert.deepEqual(ids(await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_SKIP', '5')])), [6]);
      assert.deepEqual(ids(await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_SKIP', '60')])), []);
      assert.deepEqual(ids(await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_LIMIT', '0')])), []);
    });

    it('orders with GETDATA_ORDER, also by a group field', async () => {
      const byName = await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ORDER', 'name desc')]);
      const names = (byName.json as Record[]).map((r) => r.name as string);
      assert.deepEqual(names, [...names].sort().reverse());
      const byCity = await app.post('/api/RunConnectionGetDataMin/crm/Customer', [
        read('GETDATA_WHERE', 'addresses.main.city IS NOT NULL'),
        read('GETDATA_ORDER', 'addresses.main.city asc, id desc'),
      ]);
      assert.deepEqual(ids(byCity), [2, 6, 4, 1]);
    });

    it('filters with GETDATA_WHERE in SQL-like and OData syntax, also on group fields', async () => {
      const where = (text: string) => app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_WHERE', text)]);
      assert.deepEqual(ids(await where("active = true AND addresses.main.country = 'US'")), [2, 4, 6]);
      assert.deepEqual(ids(await where("startswith(name, 'A') and active eq true")), [1]);
      assert.deepEqual(ids(await where("email = '' OR addresses.invoice.city LIKE 'Cam%'")), [5, 6]);
      assert.deepEqual(ids(await where('id IN (3, 5) AND NOT active')), [3]);
      assert.deepEqual(ids(await where('')), [1, 2, 3, 4, 5, 6], 'an empty filter is no filter');
    });

    it('reads one record with GETDATA_ID', async () => {
      assert.deepEqual(ids(await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ID', '4')])), [4]);
      assert.deepEqual(ids(await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ID', '99')])), []);
      // Not an Integer at all: a mistake in the request, answered 400 rather than an empty list.
      assertProblem(
        await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ID', 'abc')]),
        400,
        'invalid-value',
        /not a valid Integer value for its key field id/,
      );
      assertProblem(await app.get('/api/GetDataObject/crm/Customer/abc'), 400, 'invalid-value');
      // A JSON number past 2^53 is rounded by JSON parsing (…790 became …768 or …800): refused, said how to send it.
      for (const value of [JSON.parse('1234567890123456790') as number, 2 ** 53]) {
        assertProblem(
          await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ID', value)]),
          400,
          'invalid-request',
          /The number \d+ \(at \/0\/value\) is past 2\^53.*send it as a string of its exact digits/,
        );
      }
      assert.deepEqual(ids(await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ID', 4)])), [4]);
      const account = await app.post('/api/RunConnectionGetDataMin/erp/Account', [read('GETDATA_ID', 'C-2')]);
      assert.deepEqual(account.json, [
        {
          AccountNumber: 'C-2',
          AccountName: 'Grace Hopper (old name)',
          Email: 'grace@example.com',
          City: 'Arlington',
          Country: 'US',
          SyncedAt: null,
        },
      ]);
    });

    it('takes parameter names in any case, Name/Value spelling and numeric values', async () => {
      const answer = await app.post('/api/RunConnectionGetDataMin/crm/Customer', [
        { Name: 'getdata_limit', Value: 1 },
        { name: 'GetData_Skip', value: '2' },
      ]);
      assert.deepEqual(ids(answer), [3]);
    });

    it('refuses an unknown parameter with a 400 that lists the known ones', async () => {
      const answer = await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_LIMIT', '1'), read('GETDATA_TOP', '1')]);
      assertProblem(
        answer,
        400,
        'unknown-read-parameter',
        /GETDATA_TOP.*GETDATA_WHERE, GETDATA_ID, GETDATA_LIMIT, GETDATA_SKIP, GETDATA_ORDER/,
      );
      assert.deepEqual(answer.json.errors[0].path, '/1/name');
    });

    it('refuses a body that is not a parameter array, a parameter given twice and a value that is not text', async () => {
      const url = '/api/RunConnectionGetDataMin/crm/Customer';
      assertProblem(await app.post(url, { GETDATA_LIMIT: '1' }), 400, 'invalid-request', /JSON array of \{"name"/);
      assertProblem(await app.post(url, ['GETDATA_LIMIT']), 400, 'invalid-request', /Each parameter is an object/);
      assertProblem(await app.post(url, [{ value: '1' }]), 400, 'invalid-request', /string name/);
      assertProblem(await app.post(url, [read('GETDATA_LIMIT', '1'), read('getdata_limit', '2')]), 400, 'invalid-request', /given twice/);
      assertProblem(await app.post(url, [{ name: 'GETDATA_WHERE', value: { id: 1 } }]), 400, 'invalid-request', /needs a string value/);
      const several = await app.post(url, [
        { Name: 'getdata_limit', Value: 2 },
        { name: 'GETDATA_WHERE' },
        'x',
        { name: 'GETDATA_ID', value: '1', valeu: '2' },
      ]);
      assertProblem(several, 400, 'invalid-request', /3 fields are not right: \/1\/value, \/2, \/3\/valeu/);
    });

    it('refuses a filter with a syntax error or a placeholder, naming the column', async () => {
      const url = '/api/RunConnectionGetDataMin/crm/Customer';
      const syntax = await app.post(url, [read('GETDATA_WHERE', 'name = ')]);
      assertProblem(syntax, 400, 'invalid-request', /GETDATA_WHERE, column \d+/);
      assert.equal(syntax.json.errors[0].path, '/0/value');
      assertProblem(
        await app.post(url, [read('GETDATA_WHERE', 'name = #name#')]),
        400,
        'invalid-request',
        /no incoming data to fill #name#/,
      );
    });
  });

  describe('RunConnectionGetData', () => {
    it('answers metadata, the total and the records', async () => {
      const answer = await app.post('/api/RunConnectionGetData/crm/Customer', [read('GETDATA_LIMIT', '2')]);
      assert.equal(answer.status, 200);
      const { records, ...metadata } = answer.json as Record;
      const field = (name: string, type: string, extra: Record = {}) => ({ name, type, required: false, readOnly: false, ...extra });
      assert.deepEqual(metadata, {
        system: 'crm',
        object: 'Customer',
        key: ['id'],
        fields: [
          field('id', 'Integer', { readOnly: true }),
          field('name', 'String', { required: true }),
          field('email', 'String'),
          field('active', 'Boolean'),
          field('updated_at', 'DateTime'),
        ],
        groups: [
          {
            name: 'addresses',
            types: ['main', 'invoice'],
            fields: ['street', 'city', 'zip', 'country'].map((name) => field(name, 'String')),
          },
        ],
        total: 6,
      });
      assert.deepEqual(
        (records as Record[]).map((r) => r.id),
        [1, 2],
      );
    });

    it('holds the same records as the minimal read for the same parameters', async () => {
      const parameters = [read('GETDATA_WHERE', "addresses.main.country = 'US'"), read('GETDATA_ORDER', 'name'), read('GETDATA_SKIP', '1')];
      const full = await app.post('/api/RunConnectionGetData/crm/Customer', parameters);
      const min = await app.post('/api/RunConnectionGetDataMin/crm/Customer', parameters);
      assert.deepEqual(full.json.records, min.json);
      assert.equal(full.json.total, 3, 'the total counts every match, not just the page');
      assert.deepEqual(ids(min), [2, 4], 'Barbara is skipped; Grace, then Katherine');
    });

    it('counts one record for GETDATA_ID and none for an unknown id', async () => {
      const one = await app.post('/api/RunConnectionGetData/crm/Customer', [read('GETDATA_ID', '6')]);
      assert.equal(one.json.total, 1);
      assert.equal(one.json.records[0].addresses.invoice.street, 'PO Box 1');
      const none = await app.post('/api/RunConnectionGetData/crm/Customer', [read('GETDATA_ID', '60')]);
      assert.deepEqual([none.json.total, none.json.records], [0, []]);
    });

    it('describes an object without groups with an empty group list', async () => {
      const answer = await app.post('/api/RunConnectionGetData/erp/Account');
      assert.deepEqual([answer.json.key, answer.json.groups, answer.json.total], [['AccountNumber'], [], 1]);
    });
  });

  describe('GetDataObject', () => {
    it('answers one record with metadata', async () => {
      const answer = await app.get('/api/GetDataObject/crm/Customer/6');
      assert.equal(answer.status, 200);
      assert.equal(answer.json.system, 'crm');
      assert.equal(answer.json.object, 'Customer');
      assert.deepEqual(answer.json.key, ['id']);
      assert.equal(answer.json.fields.length, 5);
      assert.equal(answer.json.record.name, 'Barbara Liskov');
      assert.deepEqual(Object.keys(answer.json.record.addresses).sort(), ['invoice', 'main']);
    });

    it('answers 404 for a record that does not exist', async () => {
      assertProblem(
        await app.get('/api/GetDataObject/crm/Customer/99'),
        404,
        'record-not-found',
        /crm\/Customer has no record with id = "99"/,
      );
      assertProblem(await app.get('/api/GetDataObject/erp/Account/C-99'), 404, 'record-not-found');
    });

    it('refuses a key object that gives a field twice or spells a NUL, instead of reading the last copy', async () => {
      assertProblem(
        await app.get(`/api/GetDataObject/crm/Customer/${encodeURIComponent('{"id":2,"id":3}')}`),
        400,
        'invalid-request',
        /The key object gives "id" twice; give each key field once\./,
      );
      const nul = await app.get(`/api/GetDataObject/erp/Account/${encodeURIComponent('{"AccountNumber":"C-1\\u0000"}')}`);
      assertProblem(nul, 400, 'invalid-request', /The key's AccountNumber contains a NUL character/);
      assert.equal(nul.json.errors[0].path, 'path.object_key');
    });

    it('refuses a key object whose number JSON has rounded, instead of reading another record', async () => {
      // AccountNumber is text: the rounded number would read the record '1234567890123456800'.
      const created = await app.post('/api/RunConnectionSetDataMin/erp/Account', {
        AccountNumber: '1234567890123456800',
        AccountName: 'Rounded',
      });
      assert.equal(created.status, 201, created.text);
      const key = '{"AccountNumber":1234567890123456790}';
      assertProblem(
        await app.get(`/api/GetDataObject/erp/Account/${encodeURIComponent(key)}`),
        400,
        'invalid-request',
        /The key of Account: AccountNumber is a number past 2\^53, which JSON rounds; give it as a string of its exact digits/,
      );
      assertProblem(
        await app.post('/api/RunConnectionGetDataMin/erp/Account', [read('GETDATA_ID', key)]),
        400,
        'invalid-request',
        /past 2\^53/,
      );
      const exact = await app.get(`/api/GetDataObject/erp/Account/${encodeURIComponent('{"AccountNumber":"1234567890123456800"}')}`);
      assert.equal(exact.json.record.AccountName, 'Rounded', 'the same key as a string reads its record');
    });

    it('decodes the key from the path, reserved characters included', async () => {
      const created = await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'X/1 ?#%', AccountName: 'Slash' });
      assert.equal(created.status, 201, created.text);
      const answer = await app.get(`/api/GetDataObject/erp/Account/${encodeURIComponent('X/1 ?#%')}`);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.record.AccountName, 'Slash');
    });
  });

  describe('RunConnectionGetQueryData', () => {
    const columns = [
      { Name: 'id', ColumnType: 'Integer' },
      { Name: 'name', ColumnType: 'String' },
      { Name: 'active', ColumnType: 'Boolean' },
      { Name: 'city', ColumnType: 'String' },
    ];
    const statement =
      "SELECT c.id, c.name, c.active, a.city FROM customers c LEFT JOIN customer_addresses a ON a.customer_id = c.id AND a.type = 'main' WHERE c.id <= 3 ORDER BY c.id";

    it('answers the rows projected to the declared columns and typed, with the total of CountStatement', async () => {
      const answer = await app.post('/api/RunConnectionGetQueryData/crm', {
        columns,
        Statement: statement,
        CountStatement: 'SELECT COUNT(*) FROM customers',
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, {
        columns,
        records: [
          { id: 1, name: 'Ada Lovelace', active: true, city: 'London' },
          { id: 2, name: 'Grace Hopper', active: true, city: 'Arlington' },
          { id: 3, name: 'Alan Turing', active: false, city: null },
        ],
        total: 6,
      });
    });

    it('refuses a count statement whose first column is not a total, or that answers several rows, instead of answering a total', async () => {
      const url = '/api/RunConnectionGetQueryData/crm';
      const answer = await app.post(url, { columns, Statement: statement, CountStatement: "SELECT 'many' AS n" });
      assertProblem(answer, 409, 'rejected', /the count statement answers 'many' in its first column, not a whole number of 0 or more/);
      // Its rows, not a count: the first id would have been answered as the total.
      const rows = await app.post(url, { columns, Statement: statement, CountStatement: 'SELECT id FROM customers' });
      assertProblem(rows, 409, 'rejected', /the count statement answers 6 rows; it must answer one row with the total/);
      const none = await app.post(url, { columns, Statement: statement, CountStatement: 'SELECT COUNT(*) FROM customers WHERE 1 = 0' });
      assert.equal(none.json.total, 0, none.text);
    });

    it('refuses a column named twice in columns', async () => {
      const answer = await app.post('/api/RunConnectionGetQueryData/crm', {
        columns: [
          { Name: 'id', ColumnType: 'Integer' },
          { Name: 'id', ColumnType: 'String' },
        ],
        Statement: 'SELECT id FROM customers',
      });
      assertProblem(answer, 400, 'invalid-request', /Column id is given twice in columns/);
      assert.equal(answer.json.errors[0].path, '/columns/1/Name');
    });

    it('has no total without CountStatement, and takes lower-case property names', async () => {
      const answer = await app.post('/api/RunConnectionGetQueryData/crm', {
        columns: [{ name: 'n', columnType: 'integer' }],
        statement: 'SELECT COUNT(*) AS n FROM customers',
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, { columns: [{ Name: 'n', ColumnType: 'Integer' }], records: [{ n: 6 }] });
    });

    it('refuses a body without columns or statement, and unknown column types', async () => {
      const url = '/api/RunConnectionGetQueryData/crm';
      assertProblem(await app.post(url, { Statement: 'SELECT 1' }), 400, 'invalid-request', /columns must be a non-empty array/);
      assertProblem(await app.post(url, { columns, Statement: '  ' }), 400, 'invalid-request', /Statement must be a non-empty string/);
      assertProblem(
        await app.post(url, { columns: [{ Name: 'id', ColumnType: 'Text' }], Statement: 'SELECT 1 AS id' }),
        400,
        'invalid-request',
        /ColumnType of id must be one of String, Integer/,
      );
      assertProblem(
        await app.post(url, { columns: [{ ColumnType: 'String' }], Statement: 'SELECT 1 AS id' }),
        400,
        'invalid-request',
        /needs a Name/,
      );
      assertProblem(await app.post(url, { columns, Statement: 'SELECT 1', CountStatement: 7 }), 400, 'invalid-request', /CountStatement/);
      assertProblem(await app.post(url, [statement]), 400, 'invalid-request', /must be an object/);
      // A misspelt Limit ignored would answer the whole result instead of a page.
      const misspelt = await app.post(url, { columns, Statement: 'SELECT 1 AS id', Limt: 5, Skip: -1 });
      assertProblem(misspelt, 400, 'invalid-request', /2 fields are not right: \/Limt, \/Skip/);
      assert.deepEqual(misspelt.json.errors, [
        { path: '/Limt', message: 'Unknown property "Limt"; the properties are columns, Statement, CountStatement, Limit, Skip.' },
        { path: '/Skip', message: 'Skip must be a whole number from 0 to 9007199254740991, not -1.' },
      ]);
    });

    it('refuses a declared column the result does not have, naming the ones it has', async () => {
      const answer = await app.post('/api/RunConnectionGetQueryData/crm', {
        columns: [{ Name: 'mail', ColumnType: 'String' }],
        Statement: 'SELECT id, email FROM customers',
      });
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.json.detail, /column '?mail'? is not in the query result; the result has id, email/i);
    });

    it('answers a statement the database cannot run with 409 and no SQL or driver text', async () => {
      const answer = await app.post('/api/RunConnectionGetQueryData/crm', {
        columns,
        Statement: 'SELECT secret_column FROM no_such_table',
      });
      assertProblem(answer, 409, 'rejected', /the database refused the statement/);
      assert.doesNotMatch(answer.text, /no_such_table|secret_column|SQLITE/);
    });

    it('refuses a plain write before it reaches the database', async () => {
      assertProblem(
        await app.post('/api/RunConnectionGetQueryData/crm', { columns, Statement: 'DELETE FROM customers' }),
        403,
        'read-only',
        /starts with DELETE/,
      );
      assert.equal((await app.crm('customers').count({ n: '*' }))[0]!.n, 6);
    });

    it('answers 404 for an unknown system', async () => {
      assertProblem(
        await app.post('/api/RunConnectionGetQueryData/nope', { columns, Statement: statement }),
        404,
        'unknown-system',
        /no system 'nope'. Systems: crm, erp/,
      );
    });
  });

  describe('RunConnectionSetData', () => {
    let created: number;

    it('creates a record with typed group entries (group[type].field) and answers 201 with the key', async () => {
      const answer = await app.post('/api/RunConnectionSetData/crm/Customer', {
        name: 'Customer',
        columns: [
          { name: 'name', columnType: 'String', value: 'Hedy Lamarr' },
          { name: 'email', columnType: 'String', value: 'hedy@example.com' },
          { name: 'active', columnType: 'Boolean', value: true },
          { name: 'addresses[main].city', columnType: 'String', value: 'Vienna' },
          { name: 'addresses[main].country', columnType: 'String', value: 'AT' },
          { name: 'addresses[invoice].street', columnType: 'String', value: 'Postfach 9' },
        ],
      });
      assert.equal(answer.status, 201, answer.text);
      assert.equal(answer.json.action, 'created');
      created = answer.json.key.id as number;
      assert.deepEqual(answer.json, { action: 'created', key: { id: 7 } });
      const addresses = await app
        .crm('customer_addresses')
        .where({ customer_id: created })
        .orderBy('type')
        .select('type', 'street', 'city', 'country');
      assert.deepEqual(addresses, [
        { type: 'invoice', street: 'Postfach 9', city: null, country: null },
        { type: 'main', street: null, city: 'Vienna', country: 'AT' },
      ]);
    });

    it('updates the record idcolumns identify and answers 200 with the key', async () => {
      const answer = await app.post('/api/RunConnectionSetData/crm/Customer', {
        columns: [
          { name: 'name', columnType: 'string', value: 'Hedy K. Lamarr' },
          { name: 'addresses[invoice].city', value: 'Wien' },
        ],
        idcolumns: [{ name: 'id', columnType: 'Integer', value: created }],
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json, { action: 'updated', key: { id: created } });
      const record = (await app.get(`/api/GetDataObject/crm/Customer/${created}`)).json.record as Record;
      assert.equal(record.name, 'Hedy K. Lamarr');
      assert.equal(record.email, 'hedy@example.com', 'columns not given stay as they are');
      assert.deepEqual(record.addresses.invoice, { street: 'Postfach 9', city: 'Wien', zip: null, country: null });
      assert.equal(record.addresses.main.city, 'Vienna');
    });

    it('updates by the key among the columns, and by another field in idcolumns', async () => {
      const byKey = await app.post('/api/RunConnectionSetData/crm/Customer', {
        columns: [
          { name: 'id', value: 3 },
          { name: 'active', value: true },
        ],
      });
      assert.deepEqual([byKey.status, byKey.json], [200, { action: 'updated', key: { id: 3 } }]);
      const byEmail = await app.post('/api/RunConnectionSetData/erp/Account', {
        columns: [{ name: 'AccountName', columnType: 'String', value: 'Grace Hopper' }],
        idcolumns: [{ name: 'Email', columnType: 'String', value: 'grace@example.com' }],
      });
      assert.deepEqual([byEmail.status, byEmail.json], [200, { action: 'updated', key: { AccountNumber: 'C-2' } }]);
      assert.equal((await app.erp('accounts').where({ AccountNumber: 'C-2' }).first()).AccountName, 'Grace Hopper');
    });

    it('refuses what does not fit the object, naming the place', async () => {
      const url = '/api/RunConnectionSetData/crm/Customer';
      const columns = (...list: Record[]) => ({ columns: [{ name: 'name', value: 'X' }, ...list] });
      assertProblem(
        await app.post(url, { name: 'Account', columns: [{ name: 'name', value: 'X' }] }),
        400,
        'invalid-request',
        /names object 'Account', but the URL names 'Customer'/,
      );
      const unknownGroup = await app.post(url, columns({ name: 'phones[main].number', value: '1' }));
      assertProblem(unknownGroup, 400, 'unknown-field', /'phones' is not a group of Customer/);
      assert.equal(unknownGroup.json.errors[0].path, '/columns/1/name');
      assertProblem(
        await app.post(url, columns({ name: 'addresses[home].city', value: 'X' })),
        400,
        'invalid-request',
        /types main, invoice, not 'home'/,
      );
      assertProblem(
        await app.post(url, columns({ name: 'addresses[main].planet', value: 'X' })),
        400,
        'unknown-field',
        /group addresses has no field 'planet'/,
      );
      assertProblem(
        await app.post(url, columns({ name: 'nickname', value: 'X' })),
        400,
        'unknown-field',
        /Customer has no field 'nickname'/,
      );
      assertProblem(
        await app.post(url, columns({ name: 'email', columnType: 'Integer', value: 'X' })),
        400,
        'invalid-request',
        /email is declared String; columnType Integer does not match/,
      );
      assertProblem(
        await app.post(url, columns({ name: 'email', columnType: 'Text', value: 'X' })),
        400,
        'invalid-request',
        /'Text' is not a type/,
      );
      assertProblem(await app.post(url, columns({ name: 'email' })), 400, 'invalid-request', /needs a value/);
      assertProblem(await app.post(url, columns({ name: 'name', value: 'Y' })), 400, 'invalid-request', /given twice/);
      // A group entry's field twice: one of the values would be dropped without a word.
      const twice = await app.post(
        url,
        columns({ name: 'addresses[main].city', value: 'X' }, { name: 'addresses[main].city', value: 'Y' }),
      );
      assertProblem(twice, 400, 'invalid-request', /Column addresses\[main\]\.city is given twice/);
      assert.equal(twice.json.errors[0].path, '/columns/2/name');
      assertProblem(await app.post(url, { columns: [] }), 400, 'invalid-request', /columns must be a non-empty array/);
      assertProblem(
        await app.post(url, { ...columns(), idcolumns: [{ name: 'nope', value: 1 }] }),
        400,
        'unknown-field',
        /no field 'nope'/,
      );
      assertProblem(
        await app.post(url, {
          ...columns(),
          idcolumns: [
            { name: 'id', value: 1 },
            { name: 'id', value: 2 },
          ],
        }),
        400,
        'invalid-request',
        /Id column id is given twice/,
      );
      assertProblem(
        await app.post(url, columns({ name: 'active', columnType: 'Boolean', value: 'perhaps' })),
        400,
        'invalid-value',
        /Customer.active: expected true or false/,
      );
    });

    it('refuses a property it does not read and lists every shape problem at once, changing nothing', async () => {
      const url = '/api/RunConnectionSetData/crm/Customer';
      const before = await tableContents(app);
      // idcolumn (sic) ignored would create a record where an update was meant.
      const misspelt = await app.post(url, { Columns: [{ Name: 'name', value: 'X' }], idcolumn: [{ name: 'id', value: 1 }] });
      assertProblem(misspelt, 400, 'invalid-request', /Unknown property "idcolumn"; the properties are name, columns, idcolumns/);
      assert.deepEqual(
        misspelt.json.errors.map((e: { path: string }) => e.path),
        ['/idcolumn'],
      );
      const several = await app.post(url, {
        columns: [{ name: '', value: 1 }, { name: 'email', columnType: 'Text' }, 'x'],
        idcolumns: 'id',
      });
      assert.deepEqual(several.json.errors, [
        { path: '/columns/0/name', message: 'name must not be empty.' },
        {
          path: '/columns/1/columnType',
          message: "columnType 'Text' is not a type; use one of String, Integer, Number, Boolean, Date, DateTime, Json.",
        },
        { path: '/columns/1/value', message: 'Column email needs a value (null to clear it).' },
        { path: '/columns/2', message: 'Item 2 of columns must be a JSON object with name, columnType, value, not a string.' },
        {
          path: '/idcolumns',
          message:
            'idcolumns must be an array of {"name": string, "columnType": one of String, Integer, Number, Boolean, Date, DateTime, Json, "value": any}, not a string.',
        },
      ]);
      assert.deepEqual(await tableContents(app), before);
    });

    it('answers 409 when the system refuses the record', async () => {
      assertProblem(
        await app.post('/api/RunConnectionSetData/crm/Customer', { columns: [{ name: 'email', value: 'nobody@example.com' }] }),
        409,
        'rejected',
        /a new record needs name/,
      );
    });
  });

  describe('RunConnectionSetDataMin', () => {
    it('creates with 201 and updates with 200, answering the key', async () => {
      const first = await app.post('/api/RunConnectionSetDataMin/erp/Account', {
        AccountNumber: 'C-7',
        AccountName: 'Hedy Lamarr',
        Email: 'hedy@example.com',
      });
      assert.deepEqual([first.status, first.json], [201, { action: 'created', key: { AccountNumber: 'C-7' } }]);
      const second = await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'C-7', City: 'Vienna' });
      assert.deepEqual([second.status, second.json], [200, { action: 'updated', key: { AccountNumber: 'C-7' } }]);
      assert.deepEqual(await app.erp('accounts').where({ AccountNumber: 'C-7' }).first(), {
        AccountNumber: 'C-7',
        AccountName: 'Hedy Lamarr',
        Email: 'hedy@example.com',
        City: 'Vienna',
        Country: null,
        SyncedAt: null,
      });
    });

    it('answers the generated key of a new record', async () => {
      const answer = await app.post('/api/RunConnectionSetDataMin/crm/Customer', { name: 'Radia Perlman', active: false });
      assert.equal(answer.status, 201, answer.text);
      const id = answer.json.key.id as number;
      assert.ok(Number.isInteger(id) && id > 6);
      assert.equal((await app.crm('customers').where({ id }).first()).name, 'Radia Perlman');
    });

    it('refuses a group field with a 400 that points to RunConnectionSetData', async () => {
      for (const body of [
        { name: 'X', addresses: { main: { city: 'Paris' } } },
        { name: 'X', 'addresses.main.city': 'Paris' },
        { name: 'X', 'addresses[main].city': 'Paris' },
      ]) {
        const answer = await app.post('/api/RunConnectionSetDataMin/crm/Customer', body);
        assertProblem(answer, 400, 'group-needs-full-write', /RunConnectionSetData as a column 'addresses\[<type>\]\.<field>'/);
        assert.equal(answer.json.errors[0].path, `/${Object.keys(body)[1]}`);
      }
      assert.equal((await app.crm('customers').where({ name: 'X' })).length, 0, 'nothing was written');
    });

    it('refuses an unknown field listing the fields, and bodies that are not flat objects', async () => {
      assertProblem(
        await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'C-8', Phone: '1' }),
        400,
        'unknown-field',
        /Account has no field 'Phone'. Fields: AccountNumber, AccountName, Email, City, Country, SyncedAt/,
      );
      assertProblem(
        await app.post('/api/RunConnectionSetDataMin/erp/Account', [{ AccountNumber: 'C-8' }]),
        400,
        'invalid-request',
        /flat JSON object/,
      );
      assertProblem(await app.post('/api/RunConnectionSetDataMin/erp/Account', 'C-8'), 400, 'invalid-request');
    });

    it('refuses a value of the wrong type and setting a read-only field', async () => {
      assertProblem(
        await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'C-8', AccountName: 'Y', SyncedAt: 'yesterday' }),
        400,
        'invalid-value',
        /SyncedAt: expected an ISO 8601 date-time/,
      );
      assertProblem(
        await app.post('/api/RunConnectionSetDataMin/crm/Customer', { id: 500, name: 'Y' }),
        403,
        'read-only',
        /Customer.id is read-only/,
      );
      assert.equal(await app.erp('accounts').where({ AccountNumber: 'C-8' }).first(), undefined);
    });
  });

  describe('routing', () => {
    it('matches routes, system keys and object types case-insensitively', async () => {
      const answer = await app.post('/API/runconnectiongetdatamin/CRM/customer', [read('getdata_id', '1')]);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(ids(answer), [1]);
      assert.equal((await app.get('/api/GETDATAOBJECT/Erp/ACCOUNT/C-2')).status, 200);
    });

    it('answers 404 naming what exists for an unknown system or object', async () => {
      assertProblem(
        await app.post('/api/RunConnectionGetDataMin/shop/Customer'),
        404,
        'unknown-system',
        /no system 'shop'. Systems: crm, erp/,
      );
      assertProblem(
        await app.post('/api/RunConnectionGetData/crm/Invoice'),
        404,
        'unknown-object',
        /System crm has no object 'Invoice'. Objects: Customer/,
      );
      assertProblem(await app.get('/api/GetDataObject/erp/Customer/1'), 404, 'unknown-object', /Objects: Account/);
      assertProblem(await app.post('/api/RunConnectionSetDataMin/erp/Invoice', { a: 1 }), 404, 'unknown-object');
    });

    it('answers 405 with Allow for a known path and another method, 404 for unknown paths', async () => {
      const wrongMethod = await app.get('/api/RunConnectionGetDataMin/crm/Customer');
      assertProblem(wrongMethod, 405, 'method-not-allowed', /answers POST/);
      assert.equal(wrongMethod.headers.get('allow'), 'POST');
      assertProblem(await app.post('/api/RunConnectionGetDataMin/crm'), 404, 'unknown-route', /openapi\.json/);
      assertProblem(await app.post('/api/RunConnectionGetDataMin/crm/Customer/1/2'), 404, 'unknown-route');
    });
  });
});

/** A System over customer_addresses, whose key is composite (customer_id, type), on the engine's database. */
function addressSystem(engine: Engine): string {
  return `kind: System
id: addressbook
connector: sql
connection: ${JSON.stringify(engineConnection(engine))}
objects:
  Address:
    table: customer_addresses
    key: [customer_id, type]
    fields: { customer_id: { type: Integer }, type: { type: String }, city: { type: String } }
`;
}

await describeEachDatabase('connection routes', (database) => {
  describe('read, write and query basics', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), { files: { 'addressbook.yaml': addressSystem(database().engine) } });
    });
    after(() => app?.close());

    it('takes a key as a JSON object, single-field and composite, and names what does not fit', async () => {
      const getDataId = (object: string, value: string) => app.post(`/api/RunConnectionGetDataMin/${object}`, [read('GETDATA_ID', value)]);
      const object = (path: string, key: string) => app.get(`/api/GetDataObject/${path}/${encodeURIComponent(key)}`);
      assert.deepEqual(ids(await getDataId('crm/Customer', '{"id":2}')), [2]);
      assert.deepEqual(ids(await getDataId('crm/Customer', '{"id":"2"}')), [2]);
      assert.deepEqual(ids(await getDataId('crm/Customer', ' {"id": 2} ')), [2]);
      assert.equal((await object('crm/Customer', '{"id":2}')).json.record.id, 2);
      assert.equal((await object('erp/Account', '{"AccountNumber":"C-2"}')).json.record.City, 'Arlington');
      assertProblem(await object('crm/Customer', '{"id":99}'), 404, 'record-not-found');
      // Text that is no JSON object stays the value of a single-field key.
      assertProblem(await object('erp/Account', '{C-2'), 404, 'record-not-found', /AccountNumber = "\{C-2"/);
      // Composite: the object, and the same record by its comma spelling.
      const address = await object('addressbook/Address', '{"customer_id":1,"type":"invoice"}');
      assert.equal(address.status, 200, address.text);
      assert.equal(address.json.record.city, 'London');
      assert.deepEqual(
        (await getDataId('addressbook/Address', '{"type":"main","customer_id":2}')).json,
        (await getDataId('addressbook/Address', '2,main')).json,
      );
      // Refused with the field named, before the database is asked.
      const refusals: Array<[Answer, RegExp, string]> = [
        [await getDataId('crm/Customer', '{"pid":2}'), /key of Customer is id; missing id; not key fields: pid/, '/0/value'],
        [await getDataId('crm/Customer', '{"id":2,"name":"Ada"}'), /not key fields: name/, '/0/value'],
        [await getDataId('crm/Customer', '{"id":{"$gt":0}}'), /id is an object/, '/0/value'],
        [await getDataId('crm/Customer', '{"id":[1,2]}'), /id is an array/, '/0/value'],
        [await getDataId('crm/Customer', '{"id":null}'), /id is null/, '/0/value'],
        [await object('crm/Customer', '{"toString":1}'), /missing id; not key fields: toString/, 'path.object_key'],
        [await object('addressbook/Address', '{"customer_id":1}'), /missing type/, 'path.object_key'],
      ];
      for (const [answer, detail, path] of refusals) {
        assertProblem(answer, 400, 'invalid-request', detail);
        assert.equal(answer.json.errors[0].path, path);
      }
      // A typed value that does not fit is still the connector's 400, naming the key field.
      assertProblem(await getDataId('crm/Customer', '{"id":"two"}'), 400, 'invalid-value', /key field id/);
    });

    it('reads records with groups, filter, order and paging', async () => {
      const all = await app.post('/api/RunConnectionGetDataMin/crm/Customer', []);
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(ids(all), [1, 2, 3, 4, 5, 6]);
      assert.deepEqual(all.json[0].addresses.invoice, { street: '1 Analytical Row', city: 'London', zip: 'EC1A 1BB', country: 'GB' });
      assert.equal(all.json[2].active, false);
      const page = await app.post('/api/RunConnectionGetData/crm/Customer', [
        read('GETDATA_WHERE', "active = true AND addresses.main.country = 'US'"),
        read('GETDATA_ORDER', 'addresses.main.city desc'),
        read('GETDATA_LIMIT', '2'),
      ]);
      assert.equal(page.status, 200, page.text);
      assert.equal(page.json.total, 3);
      assert.deepEqual(
        page.json.records.map((r: Record) => r.id),
        [4, 6],
      );
      assert.equal((await app.get('/api/GetDataObject/erp/Account/C-2')).json.record.City, 'Arlington');
      assert.equal((await app.get('/api/GetDataObject/crm/Customer/77')).status, 404);
    });

    it('creates and updates with the full write, typed groups included', async () => {
      const created = await app.post('/api/RunConnectionSetData/crm/Customer', {
        columns: [
          { name: 'name', columnType: 'String', value: "Mary O'Neil" },
          { name: 'addresses[main].city', columnType: 'String', value: 'Dublin' },
        ],
      });
      assert.deepEqual([created.status, created.json], [201, { action: 'created', key: { id: 7 } }]);
      const updated = await app.post('/api/RunConnectionSetData/crm/Customer', {
        columns: [
          { name: 'addresses[invoice].city', value: 'Cork' },
          { name: 'active', columnType: 'Boolean', value: false },
        ],
        idcolumns: [{ name: 'id', value: 7 }],
      });
      assert.deepEqual([updated.status, updated.json], [200, { action: 'updated', key: { id: 7 } }]);
      const record = (await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ID', '7')])).json[0] as Record;
      assert.equal(record.name, "Mary O'Neil");
      assert.equal(record.active, false);
      assert.deepEqual([record.addresses.main.city, record.addresses.invoice.city], ['Dublin', 'Cork']);
    });

    it('creates and updates with the minimal write', async () => {
      const created = await app.post('/api/RunConnectionSetDataMin/erp/Account', {
        AccountNumber: 'C-9',
        AccountName: 'Nine',
        SyncedAt: '2024-05-06T07:08:09.123Z',
      });
      assert.deepEqual([created.status, created.json], [201, { action: 'created', key: { AccountNumber: 'C-9' } }]);
      const updated = await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'C-9', Country: 'NL' });
      assert.deepEqual([updated.status, updated.json], [200, { action: 'updated', key: { AccountNumber: 'C-9' } }]);
      const record = (await app.get('/api/GetDataObject/erp/Account/C-9')).json.record as Record;
      assert.deepEqual(record, {
        AccountNumber: 'C-9',
        AccountName: 'Nine',
        Email: null,
        City: null,
        Country: 'NL',
        SyncedAt: '2024-05-06T07:08:09.123Z',
      });
      assertProblem(
        await app.post('/api/RunConnectionSetDataMin/crm/Customer', { name: 'X', addresses: {} }),
        400,
        'group-needs-full-write',
      );
    });

    it('runs a read-only query with its count', async () => {
      const answer = await app.post('/api/RunConnectionGetQueryData/crm', {
        columns: [
          { Name: 'id', ColumnType: 'Integer' },
          { Name: 'active', ColumnType: 'Boolean' },
          { Name: 'city', ColumnType: 'String' },
        ],
        Statement:
          "SELECT c.id, c.active, a.city FROM customers c JOIN customer_addresses a ON a.customer_id = c.id AND a.type = 'invoice' ORDER BY c.id",
        CountStatement: 'SELECT COUNT(*) FROM customer_addresses',
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json.records.slice(0, 2), [
        { id: 1, active: true, city: 'London' },
        { id: 6, active: true, city: 'Cambridge' },
      ]);
      assert.equal(answer.json.total, Number((await app.crm('customer_addresses').count({ n: '*' }))[0]!.n));
      assertProblem(
        await app.post('/api/RunConnectionGetQueryData/crm', {
          columns: [{ Name: 'x', ColumnType: 'String' }],
          Statement: 'SELECT x FROM nowhere',
        }),
        409,
        'rejected',
      );
    });

    it('answers the errors of the catalogue', async () => {
      assertProblem(await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ORDER', 'nickname')]), 400, 'unknown-field');
      assertProblem(
        await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'C-10', AccountName: 'Ten', SyncedAt: 'never' }),
        400,
        'invalid-value',
      );
      assertProblem(
        await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_LIMIT', '-1')], tokens.reader),
        400,
        'invalid-request',
      );
    });
  });
});
