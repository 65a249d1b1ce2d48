/**
 * Injection payloads through every way data reaches SQL: filter string literals (parsed into the
 * AST), placeholders, `#FlowFilter#` of free queries, id values, order field names and write
 * values, plus 1 MB strings, on every database. Values are always bound, so each filter selects
 * exactly what the JS evaluator selects (never an extra row), written values read back
 * byte-identical, field names from requests are refused, and afterwards every table is there with
 * the expected number of rows.
 *
 * PostgreSQL text cannot hold NUL (U+0000): there a payload with NUL is refused with a clean
 * 'invalid-value'. SQLite cannot match a LIKE pattern with NUL: refused with 'unsupported'.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, RecordData } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import * as sqlConnector from '../../../../connectors/sql/index.js';
import { evaluateCondition, parseExpression, recordScope, resolvePath, type Expression } from '../../../../definitions/expression/index.js';
import { describeEachDatabase, type TestDatabase } from '../../../support/databases.js';
import { readAll } from '../conformance.js';
import { createCrm, crmSystem, tableCounts } from './sql-crm.js';

const PAYLOADS: readonly string[] = [
  "' OR 1=1 --",
  "' OR '1'='1",
  '1; DROP TABLE customers',
  '1); DROP TABLE customers; --',
  "') UNION SELECT id, name, email FROM customers --",
  "' UNION SELECT NULL, NULL, NULL --",
  "admin'--",
  "' /* comment */ OR 1=1 /*",
  '" OR ""="',
  "\\' OR 1=1 -- ",
  "\\\\'; DROP TABLE accounts; --",
  "\u0000' OR 1=1 --",
  "%' OR name LIKE '%",
  '%',
  '_',
  "'; SELECT pg_sleep(5); --",
  "' AND SLEEP(5) AND '",
  "1' AND (SELECT COUNT(*) FROM customers) > 0 AND '1'='1",
  '?',
  '??',
  '$1',
  ':name',
  '#FlowFilter#',
  "'; INSERT INTO accounts VALUES ('X', 'X', NULL); --",
  '`; DROP TABLE customers; `',
  ']; DROP TABLE customers; --',
  '$$; DROP TABLE customers; $$',
  "E'\\x27 OR 1=1",
  'ʼ OR 1=1 --',
  '＇ OR 1=1 --',
  "\u00bf' OR 1=1 --",
  "\n' OR 1=1 --\r\n\t",
  '*/ OR 1=1 /*',
  "' OR 1=1 LIMIT 1 --",
  `${"'".repeat(5000)} OR 1=1`,
];

/** Filters over the customers with the payload as a literal; each must select what the evaluator selects. */
const LITERAL_FILTERS = (quoted: string): string[] => [
  `name = ${quoted}`,
  `name <> ${quoted}`,
  `name IN (${quoted}, 'Ada')`,
  `contains(name, ${quoted})`,
  `email LIKE ${quoted}`,
  `addresses.main.city = ${quoted}`,
  `score = ${quoted}`,
  `birthday = ${quoted}`,
];
const PLACEHOLDER_FILTERS = [
  'name = #p#',
  'name <> #p#',
  'startswith(name, #p#)',
  'name LIKE #p#',
  'id = #p#',
  'active = #p#',
  'updated_at = #p#',
  'addresses.invoice.street <> #p#',
];
const ONE_MB = 1024 * 1024;

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The records the connector selects, or the refusal it gives for a value its database cannot hold or match. */
async function select(
  connection: Connection,
  filter: Expression,
  placeholders: Record<string, unknown>,
): Promise<number[] | ConnectorError> {
  try {
    const { records } = await readAll(connection, 'Customer', {
      filter,
      placeholders: (path) => resolvePath(placeholders, path),
      pageSize: 10,
    });
    return records.map((record) => Number(record.id));
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
}

/**
 * The only refusals allowed: PostgreSQL cannot hold NUL ('invalid-value'); SQLite cannot match a
 * LIKE pattern with wildcards that holds NUL or exceeds 50,000 bytes ('unsupported'). Never a
 * driver message, never SQL.
 */
function refusedCleanly(database: TestDatabase, payload: string, result: ConnectorError): void {
  const allowed =
    database.engine === 'postgres'
      ? payload.includes('\u0000') && result.code === 'invalid-value'
      : database.engine === 'sqlite' && result.code === 'unsupported' && (payload.includes('\u0000') || payload.length > 50_000);
  assert.ok(allowed, `${JSON.stringify(payload.slice(0, 40))} refused with '${result.code}': ${result.message}`);
  assert.doesNotMatch(result.message, /SELECT|customers|OR 1=1/);
}

function injectionSuite(database: () => TestDatabase): void {
  let connection: Connection;
  let everyone: RecordData[] = [];
  let expectedCounts: Record<string, number> = {};

  before(async () => {
    await createCrm(database());
    connection = sqlConnector.createConnection(crmSystem(database()), { baseDirectory: database().baseDirectory });
    everyone = (await readAll(connection, 'Customer')).records;
    expectedCounts = await tableCounts(database().admin);
  });
  after(async () => {
    await connection?.close();
  });

  async function assertIntact(): Promise<void> {
    assert.deepEqual(await tableCounts(database().admin), expectedCounts, 'every table is there with the same number of rows');
  }

  async function compare(filter: string | Expression, placeholders: Record<string, unknown>, payload: string): Promise<void> {
    const ast = typeof filter === 'string' ? parseExpression(filter) : filter;
    const expected = everyone
      .filter((record) => evaluateCondition(ast, recordScope(record, placeholders)))
      .map((record) => Number(record.id));
    const actual = await select(connection, ast, placeholders);
    if (actual instanceof ConnectorError) refusedCleanly(database(), payload, actual);
    else assert.deepEqual(actual, expected, `${typeof filter === 'string' ? filter.slice(0, 80) : 'filter'} selected other records`);
  }

  test(`there are at least 25 payloads (${PAYLOADS.length})`, () => assert.ok(PAYLOADS.length >= 25));

  test('payloads as filter literals select exactly what the evaluator selects', async () => {
    for (const payload of PAYLOADS) {
      for (const filter of LITERAL_FILTERS(quote(payload))) {
        const ast = parseExpression(filter);
        await compare(ast, {}, payload);
      }
    }
    await assertIntact();
  });

  test('payloads as placeholder values, and in #FlowFilter# of a query, are only values', async () => {
    for (const payload of [...PAYLOADS, `${'x'.repeat(ONE_MB)}' OR 1=1 --`]) {
      for (const filter of PLACEHOLDER_FILTERS) await compare(filter, { p: payload }, payload);
      try {
        const result = await connection.query({
          statement: 'SELECT id FROM customers WHERE #FlowFilter# ORDER BY id',
          filter: parseExpression('name = #p# OR email = #p#'),
          placeholders: (path) => resolvePath({ p: payload }, path),
        });
        assert.deepEqual(result.rows, [], 'no customer has the payload as name or email');
      } catch (error) {
        assert.ok(error instanceof ConnectorError, String(error));
        refusedCleanly(database(), payload, error);
      }
    }
    await assertIntact();
  });

  test('payloads as id values find nothing, or are refused as values of an Integer key', async () => {
    for (const payload of PAYLOADS) {
      for (const [object, id] of [
        ['Account', { AccountNumber: payload }],
        ['Customer', { id: payload }],
      ] as const) {
        if (object === 'Customer') {
          // The Customer key is an Integer: a payload is refused as a value, before any SQL.
          await assert.rejects(
            () => readAll(connection, object, { id }),
            (error: unknown) =>
              error instanceof ConnectorError && error.code === 'invalid-value' && !/SELECT|customers|OR 1=1/.test(error.message),
          );
          continue;
        }
        try {
          assert.deepEqual((await readAll(connection, object, { id })).records, []);
        } catch (error) {
          assert.ok(error instanceof ConnectorError, String(error));
          refusedCleanly(database(), payload, error);
        }
      }
    }
    await assertIntact();
  });

  test('payloads as order or filter field names are refused as unknown fields', async () => {
    for (const payload of PAYLOADS) {
      await assert.rejects(
        readAll(connection, 'Customer', { order: [{ field: [payload], direction: 'asc', start: 0 }] }),
        (error: unknown) => error instanceof ConnectorError && error.code === 'unknown-field',
      );
      await assert.rejects(
        readAll(connection, 'Customer', { order: [{ field: ['addresses', 'main', payload], direction: 'desc', start: 0 }] }),
        (error: unknown) => error instanceof ConnectorError && error.code === 'unknown-field',
      );
      const field: Expression = {
        type: 'compare',
        op: '=',
        left: { type: 'field', path: [payload], start: 0, end: 0 },
        right: { type: 'literal', literalType: 'number', value: 1, start: 0, end: 0 },
        start: 0,
        end: 0,
      };
      await assert.rejects(
        connection.count('Customer', { filter: field }),
        (error: unknown) => error instanceof ConnectorError && error.code === 'unknown-field',
      );
      await assert.rejects(
        connection.write('Customer', { values: { name: 'x', [payload]: 1 } }),
        (error: unknown) => error instanceof ConnectorError && error.code === 'unknown-field',
      );
    }
    await assertIntact();
  });

  test('payloads as write values are stored verbatim and read back byte-identical', async () => {
    for (const [index, payload] of PAYLOADS.entries()) {
      const values = { AccountNumber: `inj-${index}`, AccountName: payload, Email: `${payload}@example.com` };
      try {
        const result = await connection.write('Account', { values });
        assert.equal(result.action, 'created');
        expectedCounts.accounts! += 1;
      } catch (error) {
        assert.ok(error instanceof ConnectorError, String(error));
        // Longer than the declared maxLength: refused by the connector on every engine, naming the field.
        if (payload.length > 150) assert.match(error.message, /Account\.AccountName: longer than the 200 characters allowed/);
        else refusedCleanly(database(), payload, error);
        continue;
      }
      const stored = (await readAll(connection, 'Account', { id: { AccountNumber: `inj-${index}` } })).records;
      assert.deepEqual(stored, [values]);
      const updated = await connection.write('Account', { match: { AccountName: payload }, values: { Email: `again ${payload}` } });
      assert.deepEqual(updated, { action: 'updated', key: { AccountNumber: `inj-${index}` } });
    }
    await assertIntact();
  });

  test('1 MB values are written, read back and matched exactly', async () => {
    const big = Array.from({ length: ONE_MB / 16 }, (_, i) => `'"\\;--/*%_${String(i % 1000).padStart(3, '0')}🙂`)
      .join('')
      .slice(0, ONE_MB);
    const result = await connection.write('Customer', { values: { name: 'Big', notes: big } });
    expectedCounts.customers! += 1;
    const [stored] = (await readAll(connection, 'Customer', { id: result.key })).records;
    assert.equal(stored?.notes, big);
    const found = await readAll(connection, 'Customer', {
      filter: parseExpression('notes = #p#'),
      placeholders: (path) => resolvePath({ p: big }, path),
    });
    assert.deepEqual(
      found.records.map((record) => record.id),
      [result.key.id],
    );
    await assertIntact();
  });
}

await describeEachDatabase('sql injection', injectionSuite);
