/**
 * Attacks through every door the connection routes open, on every engine: SQL injection payloads
 * (quotes, comments, stacked statements, UNION, backslashes, NUL bytes, look-alike quotes, very
 * long strings) as GETDATA_WHERE literals and spliced into the filter, as GETDATA_ID, GETDATA_ORDER,
 * system keys, object types and record keys in the URL, and as write values, keys and field names.
 * Afterwards every table is intact and no answer held a row it should not have. Free queries that
 * try to write pass the statement check on purpose and are refused by the database itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { evaluateCondition, parseExpression, recordScope } from '../../../../definitions/expression/index.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, tableContents, tableNames, type Answer, type HttpApp } from '../../../support/http-app.js';

const payloads: readonly string[] = [
  "' OR 1=1 --",
  "' OR '1'='1",
  "' OR ''='",
  '1; DROP TABLE customers',
  '1; DROP TABLE customers; --',
  "'; DROP TABLE accounts; --",
  "Robert'); DROP TABLE customers;--",
  "') UNION SELECT name, email FROM customers --",
  "' UNION SELECT NULL, NULL, NULL, NULL, NULL --",
  "' UNION ALL SELECT AccountNumber, AccountName FROM accounts WHERE '1'='1",
  '" OR ""="',
  "admin'--",
  "admin' #",
  "' /* comment */ OR /**/ 1=1 /*",
  '*/ OR 1=1 /*',
  "\\' OR 1=1 --",
  "\\\\'; DELETE FROM customer_addresses; --",
  "\\'; UPDATE customers SET name = 'pwned'; --",
  "\u0000' OR 1=1 --",
  'abc\u0000def',
  "%' OR name LIKE '%",
  '_%',
  "'; UPDATE customers SET name = 'pwned' WHERE '1'='1",
  "1' AND SLEEP(5) --",
  "'; SELECT pg_sleep(5); --",
  '$$; DROP TABLE accounts; $$',
  "' || (SELECT email FROM customers LIMIT 1) || '",
  '`; DROP TABLE accounts; -- ',
  '[customers]',
  "'\n OR 1=1\n--",
  '\u02bc OR 1=1 --',
  '\uff07 OR 1=1 --',
  '1 OR 1=1',
  "' OR id IS NOT NULL OR '",
  "'; ATTACH DATABASE '/tmp/syncline-x.sqlite' AS x; --",
  "'; PRAGMA query_only = OFF; --",
  '#FlowFilter#',
  '${env:HOME}',
  `${"'".repeat(5000)} OR 1=1`,
  `${'A'.repeat(60_000)}' OR 'a'='a`,
];

type Row = Record<string, any>;
const read = (name: string, value: string) => ({ name, value });
/** A payload as a string literal of the expression language (quotes doubled). */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
/** URL segments stay below Node's header size limit. */
const segment = (text: string) => encodeURIComponent(text.slice(0, 2000));

function assertStatus(answer: Answer, allowed: number[], what: string): void {
  assert.ok(allowed.includes(answer.status), `${what}: ${answer.status} ${answer.text.slice(0, 500)}`);
  if (answer.status >= 400) assert.equal(answer.type, 'application/problem+json', what);
}

const ids = (records: Row[]) => records.map((record) => record.id as number);

/** Runs `check` for every payload at once: the checks are independent, and serial would be slow. */
async function eachPayload(list: readonly string[], check: (payload: string, index: number) => Promise<void>): Promise<void> {
  await Promise.all(list.map((payload, index) => check(payload, index)));
}

await describeEachDatabase('injection through the connection routes', (database) => {
  describe('over HTTP', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database());
    });
    after(() => app?.close());

    describe('payloads', () => {
      let initial: Awaited<ReturnType<typeof tableContents>>;
      let tables: string[];
      let customers: Row[];

      before(async () => {
        initial = await tableContents(app);
        tables = await tableNames(app);
        customers = (await app.post('/api/RunConnectionGetDataMin/crm/Customer', [])).json as Row[];
        assert.equal(customers.length, 6);
      });

      it(`has at least 25 payloads (${payloads.length})`, () => {
        assert.ok(payloads.length >= 25);
      });

      it('treats payloads in GETDATA_WHERE literals as data: nothing matches that should not', async () => {
        await eachPayload(payloads, async (payload) => {
          const what = JSON.stringify(payload.slice(0, 60));
          const exact = await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_WHERE', `name = ${literal(payload)}`)]);
          // NUL cannot be in PostgreSQL text; that is a 400, never a match.
          assertStatus(exact, [200, 400], what);
          if (exact.status === 200) assert.deepEqual(exact.json, [], what);
          const either = await app.post('/api/RunConnectionGetDataMin/crm/Customer', [
            read('GETDATA_WHERE', `email = ${literal(payload)} OR id = 2`),
          ]);
          assertStatus(either, [200, 400], what);
          if (either.status === 200) assert.deepEqual(ids(either.json), [2], what);
          const odata = await app.post('/api/RunConnectionGetData/crm/Customer', [
            read('GETDATA_WHERE', `contains(name, ${literal(payload)}) or addresses.main.city eq ${literal(payload)}`),
          ]);
          assertStatus(odata, [200, 400], what);
          if (odata.status === 200) {
            const possible = customers
              .filter((c) => (c.name as string).toLowerCase().includes(payload.toLowerCase()))
              .map((c) => c.id as number);
            assert.ok(
              ids(odata.json.records).every((id) => possible.includes(id)),
              `${what}: ${odata.text.slice(0, 300)}`,
            );
            assert.equal(odata.json.total, odata.json.records.length);
          }
        });
      });

      it('answers payloads spliced into GETDATA_WHERE with what the filter means, or a 400', async () => {
        let parsed = 0;
        await eachPayload(payloads, async (payload) => {
          for (const filter of [`name = '${payload}'`, `id = ${payload}`, payload]) {
            const what = JSON.stringify(filter.slice(0, 60));
            const answer = await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_WHERE', filter)]);
            assertStatus(answer, [200, 400], what);
            if (answer.status !== 200) continue;
            // The filter parsed: the database must return exactly the records it means, evaluated in JS.
            const ast = parseExpression(filter);
            const meant = customers.filter((record) => evaluateCondition(ast, recordScope(record))).map((c) => c.id as number);
            assert.deepEqual(ids(answer.json), meant, what);
            parsed += 1;
          }
        });
        // Some splices are valid filters (`name = '' OR '1'='1'` means every record): the check above has teeth.
        assert.ok(parsed >= 10, `${parsed} spliced filters parsed`);
      });

      it('treats payloads as GETDATA_ID values', async () => {
        await eachPayload(payloads, async (payload) => {
          const what = JSON.stringify(payload.slice(0, 60));
          const byString = await app.post('/api/RunConnectionGetDataMin/erp/Account', [read('GETDATA_ID', payload)]);
          assertStatus(byString, [200, 400], what);
          if (byString.status === 200) assert.deepEqual(byString.json, [], what);
          const byInteger = await app.post('/api/RunConnectionGetData/crm/Customer', [read('GETDATA_ID', payload)]);
          assertStatus(byInteger, [200, 400], what);
          if (byInteger.status === 200) assert.deepEqual([byInteger.json.records, byInteger.json.total], [[], 0], what);
        });
      });

      it('refuses payloads as GETDATA_ORDER', async () => {
        await eachPayload(payloads, async (payload) => {
          for (const order of [payload, `name ${payload}`, `name, ${payload}`]) {
            assertStatus(
              await app.post('/api/RunConnectionGetDataMin/crm/Customer', [read('GETDATA_ORDER', order)]),
              [400],
              JSON.stringify(order.slice(0, 60)),
            );
          }
        });
      });

      it('answers payloads as system keys, object types and record keys in the URL with 404 (400 for NUL)', async () => {
        await eachPayload(payloads, async (payload) => {
          const what = JSON.stringify(payload.slice(0, 60));
          const part = segment(payload);
          // NUL in any path parameter is refused by name before anything is looked up (refuse-nul.ts).
          const unknown = payload.includes('\u0000') ? [400] : [404];
          assertStatus(await app.post(`/api/RunConnectionGetDataMin/${part}/Customer`, []), unknown, what);
          assertStatus(await app.post(`/api/RunConnectionGetData/crm/${part}`, []), unknown, what);
          assertStatus(await app.get(`/api/GetDataObject/${part}/Customer/1`), unknown, what);
          assertStatus(await app.get(`/api/GetDataObject/crm/${part}/1`), unknown, what);
          assertStatus(await app.get(`/api/GetDataObject/erp/Account/${part}`), [404, 400], what);
          assertStatus(await app.get(`/api/GetDataObject/crm/Customer/${part}`), [404, 400], what);
          assertStatus(
            await app.post(`/api/RunConnectionGetQueryData/${part}`, {
              columns: [{ Name: 'a', ColumnType: 'String' }],
              Statement: 'SELECT 1 AS a',
            }),
            unknown,
            what,
          );
          assertStatus(await app.post(`/api/RunConnectionSetDataMin/crm/${part}`, { name: 'x' }), unknown, what);
          assertStatus(
            await app.post(`/api/RunConnectionSetData/${part}/Customer`, { columns: [{ name: 'name', value: 'x' }] }),
            unknown,
            what,
          );
        });
      });

      it('leaves every table as it was after all the reads', async () => {
        assert.deepEqual(await tableContents(app), initial);
        assert.deepEqual(await tableNames(app), tables);
      });

      it('stores payloads written as values, keys and group values exactly, or refuses them', async () => {
        const written: Row[] = [];
        await eachPayload(payloads, async (payload, index) => {
          const what = JSON.stringify(payload.slice(0, 60));
          const account = { AccountNumber: `INJ-${index}`, AccountName: payload, Email: payload };
          const min = await app.post('/api/RunConnectionSetDataMin/erp/Account', account);
          // Refused: NUL (on every engine, by the API), or longer than the column (varchar(200)) on servers.
          assertStatus(min, [201, 400], what);
          if (min.status === 201) {
            assert.deepEqual(min.json, { action: 'created', key: { AccountNumber: `INJ-${index}` } });
            written.push(account);
            const stored = (await app.get(`/api/GetDataObject/erp/Account/INJ-${index}`)).json.record as Row;
            assert.equal(stored.AccountName, payload, what);
            assert.equal(stored.Email, payload, what);
          } else {
            assert.equal(
              min.json.type,
              payload.includes('\u0000') ? 'urn:syncline:problem:invalid-request' : 'urn:syncline:problem:invalid-value',
              what,
            );
          }

          if (payload.length > 40) return;
          const keyed = await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: payload, AccountName: `key ${index}` });
          assertStatus(keyed, [201, 400], what);
          if (keyed.status === 201) {
            assert.deepEqual(keyed.json.key, { AccountNumber: payload }, what);
            written.push({ AccountNumber: payload, AccountName: `key ${index}`, Email: null });
            const found = await app.post('/api/RunConnectionGetDataMin/erp/Account', [read('GETDATA_ID', payload)]);
            assert.deepEqual(
              found.json.map((r: Row) => r.AccountName),
              [`key ${index}`],
              what,
            );
          }
        });
        assert.ok(written.length >= payloads.length, `most payloads are stored (${written.length})`);

        const accounts = await app.erp('accounts').select('AccountNumber', 'AccountName', 'Email').orderBy('AccountNumber');
        const expected = [
          ...initial.accounts.map(({ AccountNumber, AccountName, Email }) => ({ AccountNumber, AccountName, Email })),
          ...written,
        ];
        const byKey = (a: Row, b: Row) => (a.AccountNumber < b.AccountNumber ? -1 : a.AccountNumber > b.AccountNumber ? 1 : 0);
        assert.deepEqual([...accounts].sort(byKey), expected.sort(byKey), 'accounts holds exactly the old rows and the written ones');
        const now = await tableContents(app);
        assert.deepEqual([now.customers, now.customer_addresses], [initial.customers, initial.customer_addresses]);
        assert.deepEqual(await tableNames(app), tables);
      });

      it('stores payloads in typed group entries exactly, or refuses them', async () => {
        let created = 0;
        await eachPayload(
          payloads.filter((p) => p.length <= 200),
          async (payload) => {
            const what = JSON.stringify(payload.slice(0, 60));
            const answer = await app.post('/api/RunConnectionSetData/crm/Customer', {
              columns: [
                { name: 'name', columnType: 'String', value: payload },
                { name: 'addresses[main].street', columnType: 'String', value: payload },
                { name: 'addresses[invoice].city', columnType: 'String', value: payload },
              ],
            });
            assertStatus(answer, [201, 400], what);
            if (answer.status !== 201) return;
            created += 1;
            const record = (await app.get(`/api/GetDataObject/crm/Customer/${answer.json.key.id}`)).json.record as Row;
            assert.deepEqual([record.name, record.addresses.main.street, record.addresses.invoice.city], [payload, payload, payload], what);
          },
        );
        const customerCount = Number((await app.crm('customers').count({ n: '*' }))[0]!.n);
        assert.equal(customerCount, initial.customers.length + created);
        assert.equal(
          Number((await app.crm('customer_addresses').count({ n: '*' }))[0]!.n),
          initial.customer_addresses.length + 2 * created,
        );
        const old = (await tableContents(app)).customers.filter((row) => (row.id as number) <= 6);
        assert.deepEqual(old, initial.customers, 'the existing customers are untouched');
        assert.deepEqual(await tableNames(app), tables);
      });

      it('refuses payloads as field names', async () => {
        await eachPayload(payloads, async (payload) => {
          const what = JSON.stringify(payload.slice(0, 60));
          assertStatus(await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'F-1', [payload]: 'x' }), [400], what);
          assertStatus(
            await app.post('/api/RunConnectionSetData/erp/Account', {
              columns: [
                { name: 'AccountNumber', value: 'F-1' },
                { name: payload, value: 'x' },
              ],
            }),
            [400],
            what,
          );
          assertStatus(
            await app.post('/api/RunConnectionSetData/erp/Account', {
              columns: [{ name: 'AccountName', value: 'F' }],
              idcolumns: [{ name: payload, value: 'x' }],
            }),
            [400],
            what,
          );
        });
        assert.equal(await app.erp('accounts').where({ AccountNumber: 'F-1' }).first(), undefined);
      });
    });

    describe('free queries that try to write', () => {
      let initial: Awaited<ReturnType<typeof tableContents>>;
      let tables: string[];
      const columns = [{ Name: 'x', ColumnType: 'String' }];

      before(async () => {
        const admin = database().admin;
        // A function that writes, called from a plain SELECT: only the database can tell.
        if (database().engine === 'postgres') {
          await admin.raw(
            'CREATE FUNCTION syncline_intruder() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN DELETE FROM customer_addresses; RETURN 1; END $$',
          );
        } else if (database().engine === 'mariadb') {
          await admin.raw(
            'CREATE FUNCTION syncline_intruder() RETURNS INT MODIFIES SQL DATA BEGIN DELETE FROM customer_addresses; RETURN 1; END',
          );
        }
        initial = await tableContents(app);
        tables = await tableNames(app);
      });

      it('is refused by the database, not by the statement check', async () => {
        const statements =
          database().engine === 'sqlite'
            ? ['WITH x AS (SELECT 1) DELETE FROM customer_addresses', "WITH x AS (SELECT 1) UPDATE customers SET name = 'pwned'"]
            : database().engine === 'postgres'
              ? [
                  'SELECT syncline_intruder() AS x',
                  'WITH d AS (DELETE FROM customer_addresses RETURNING customer_id) SELECT * FROM d',
                  "SELECT setval(pg_get_serial_sequence('customers', 'id'), 999) AS x",
                  "SELECT 1 AS x FROM (SELECT set_config('default_transaction_read_only', 'off', true)) s",
                ]
              : ['SELECT syncline_intruder() AS x', 'SELECT syncline_intruder() AS x FROM customers'];
        for (const statement of statements) {
          const answer = await app.post('/api/RunConnectionGetQueryData/crm', { columns, Statement: statement });
          if (statement.includes('set_config')) {
            // Turning the setting off inside a read-only transaction does not make that transaction writable.
            assertStatus(answer, [200], statement);
            continue;
          }
          if (statement.startsWith('WITH d AS (DELETE')) {
            // Rows are read through a cursor, which PostgreSQL refuses to open over a data-modifying WITH.
            assertStatus(answer, [409], statement);
            assert.match(answer.json.detail, /the database refused the statement: the database does not support it as a query/, statement);
            continue;
          }
          assertStatus(answer, [403], statement);
          assert.equal(answer.json.type, 'urn:syncline:problem:read-only', statement);
          assert.match(answer.json.detail, /the database refused to write/, statement);
        }
        assert.deepEqual(await tableContents(app), initial);
      });

      it('is refused when it is a second statement or not a query at all', async () => {
        for (const statement of [
          'SELECT 1 AS x; DELETE FROM customers',
          'SELECT 1 AS x;\nDROP TABLE accounts',
          'DELETE FROM customers',
          'DROP TABLE accounts',
          "INSERT INTO accounts (AccountNumber, AccountName) VALUES ('Z', 'z')",
          'CREATE TABLE intruder (x INTEGER)',
          "WITH x AS (SELECT 1) INSERT INTO accounts (AccountNumber, AccountName) SELECT 'Z', 'z' FROM x",
        ]) {
          const answer = await app.post('/api/RunConnectionGetQueryData/crm', { columns, Statement: statement });
          assertStatus(answer, [403, 409], statement);
        }
        const count = await app.post('/api/RunConnectionGetQueryData/crm', {
          columns: [{ Name: 'n', ColumnType: 'Integer' }],
          Statement: 'SELECT COUNT(*) AS n FROM customers',
          CountStatement: 'SELECT 1; DELETE FROM customers',
        });
        assertStatus(count, [403, 409], 'count statement');
        assert.deepEqual(await tableContents(app), initial);
        assert.deepEqual(await tableNames(app), tables);
      });
    });
  });
});
