/**
 * The sql connector's free queries, on the conformance fixture. `#FlowFilter#` with bound values, the count statement, limit/skip
 * keeping the statement's order, typed columns — and writes refused by the database itself, shown
 * twice: through `query()` (whose statement check comes first) and directly on a read-only session
 * of the query pool, where only the database stands between the statement and the data.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection } from '../../../../connectors/connection.js';
import { engineOfClient } from '../../../../connectors/sql/engines/index.js';
import { withReadOnlySession } from '../../../../connectors/sql/read-only-session.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { toConnectorError } from '../../../../connectors/sql/database-errors.js';
import { parseExpression, resolvePath } from '../../../../definitions/expression/index.js';
import knexFactory from 'knex';
import { systemLimits } from '../../../../definitions/system-limits.js';
import type { TestDatabase } from '../../../support/databases.js';
import { rejectsWith } from '../conformance.js';
import { ADDRESSES, CUSTOMERS } from '../crm-fixture.js';
import * as sqlConnector from '../../../../connectors/sql/index.js';
import { crmSystem, tableCounts } from './sql-crm.js';

const STATEMENT = `SELECT c.id, c.name, a.city, c.active
  FROM customers c LEFT JOIN customer_addresses a ON a.customer_id = c.id AND a.type = 'main'
  WHERE c.score IS NOT NULL AND #FlowFilter# -- the caller's filter
  ORDER BY c.id DESC`;
const COUNT = `SELECT COUNT(*) AS total FROM customers c LEFT JOIN customer_addresses a ON a.customer_id = c.id AND a.type = 'main'
  WHERE c.score IS NOT NULL AND #FlowFilter#`;
const COLUMNS = [
  { name: 'id', type: 'Integer' },
  { name: 'name', type: 'String' },
  { name: 'city', type: 'String' },
  { name: 'active', type: 'Boolean' },
] as const;

/** Statements that write, each of which the database must refuse inside a read-only session. */
const WRITES = [
  "INSERT INTO customers (name) VALUES ('intruder')",
  "UPDATE customers SET name = 'x'",
  'DELETE FROM customer_addresses',
  'DROP TABLE accounts',
  'CREATE TABLE intruder (x INTEGER)',
  'ALTER TABLE accounts ADD COLUMN intruder INTEGER',
  'SELECT 1; DELETE FROM customers',
  "WITH x AS (SELECT 1 AS one) INSERT INTO accounts (AccountNumber, AccountName) SELECT 'Z', 'z' FROM x",
  'WITH d AS (DELETE FROM customers RETURNING id) SELECT * FROM d',
];

/** The first statements of WRITES are plain writes, refused as such ('read-only') everywhere. */
const PLAIN_WRITES = 6;

/** Runs after the shared suite of the same database, which created the fixture. */
export function queryConformance(database: () => TestDatabase): void {
  let opened: Connection | undefined;
  const connection = () => opened!;
  before(() => {
    opened = sqlConnector.createConnection(crmSystem(database()), { baseDirectory: database().baseDirectory });
  });
  after(async () => {
    await opened?.close();
  });

  test('a query replaces #FlowFilter# with the bound filter and counts with the count statement', async () => {
    const expected = CUSTOMERS.filter(
      (row) => row.score !== null && ADDRESSES.some((a) => a.customer_id === row.id && a.type === 'main' && a.city === "St John's"),
    ).sort((a, b) => b.id - a.id);
    const result = await connection().query({
      statement: STATEMENT,
      countStatement: COUNT,
      columns: [...COLUMNS],
      filter: parseExpression('a.city = #city#'),
      placeholders: (path) => resolvePath({ city: "St John's" }, path),
    });
    assert.equal(result.total, expected.length);
    assert.deepEqual(
      result.rows.map((row) => row.id),
      expected.map((row) => row.id),
    );
    assert.deepEqual(Object.keys(result.rows[0] ?? {}), ['id', 'name', 'city', 'active']);
    assert.ok(result.rows.every((row) => typeof row.active === 'boolean' || row.active === null));
  });

  test('a query without filter uses 1=1; limit and skip keep the statement order', async () => {
    const all = await connection().query({ statement: STATEMENT, countStatement: COUNT, columns: [...COLUMNS] });
    assert.equal(all.total, await connection().count('Customer', { filter: parseExpression('score IS NOT NULL') }));
    assert.equal(all.rows.length, all.total);
    const page = await connection().query({ statement: `${STATEMENT};`, columns: [...COLUMNS], skip: 5, limit: 7 });
    assert.deepEqual(
      page.rows.map((row) => row.id),
      all.rows.slice(5, 12).map((row) => row.id),
    );
    const tail = await connection().query({ statement: STATEMENT, columns: [...COLUMNS], skip: all.rows.length - 3 });
    assert.deepEqual(
      tail.rows.map((row) => row.id),
      all.rows.slice(-3).map((row) => row.id),
    );
    const cte = await connection().query({
      statement: 'WITH x AS (SELECT id, score FROM customers WHERE #FlowFilter#) SELECT id FROM x ORDER BY id DESC',
      filter: parseExpression('id < 10'),
      limit: 3,
      skip: 1,
    });
    assert.deepEqual(
      cte.rows.map((row) => Number(row.id)),
      [8, 7, 6],
    );
  });

  test('a query that writes is refused, and every table is unchanged', async () => {
    const before = await tableCounts(database().admin);
    for (const [index, statement] of WRITES.entries()) {
      const error = await connection()
        .query({ statement })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      assert.ok(error instanceof ConnectorError, `${statement}: expected a refusal, got ${String(error)}`);
      // A write hidden in a statement that starts like a query is refused by the database, or by its parser.
      assert.ok(
        index < PLAIN_WRITES ? error.code === 'read-only' : ['read-only', 'rejected'].includes(error.code),
        `${statement}: ${error.code} ${error.message}`,
      );
      assert.doesNotMatch(error.message, /customers|intruder/);
    }
    await rejectsWith(
      () => connection().query({ statement: 'SELECT * FROM no_such_table' }),
      'rejected',
      /names a table that does not exist/,
    );
    assert.deepEqual(await tableCounts(database().admin), before);
  });

  test('the database itself refuses writes in a read-only session', async () => {
    const testDatabase = database();
    const engine = engineOfClient(testDatabase.connection.client);
    const dialect = engine.name;
    const pool = knexFactory(
      engine.systemConfig(
        testDatabase.connection,
        { baseDirectory: testDatabase.baseDirectory },
        'query',
        systemLimits(crmSystem(testDatabase)),
      ),
    );
    const before = await tableCounts(testDatabase.admin);
    try {
      for (const [index, statement] of WRITES.entries()) {
        let error: unknown;
        let rows: unknown;
        try {
          rows = await withReadOnlySession(pool, engine, (session) => session.all(statement, []));
        } catch (caught) {
          error = toConnectorError(caught, { systemId: 'crm', action: 'running a query', statement: true });
        }
        // SQLite runs the first statement of "SELECT 1; DELETE …" only; the others must fail in the database.
        if (dialect === 'sqlite' && statement.startsWith('SELECT 1;')) assert.deepEqual(rows, [{ 1: 1 }]);
        else if (index < PLAIN_WRITES)
          assert.ok(error instanceof ConnectorError && error.code === 'read-only', `${statement}: ${String(error)}`);
        // The rest may also be beyond the engine's syntax (MariaDB has no WITH … INSERT), which is a refusal too.
        else assert.ok(error instanceof ConnectorError && ['read-only', 'rejected'].includes(error.code), `${statement}: ${String(error)}`);
      }
      assert.equal(
        (await withReadOnlySession(pool, engine, (session) => session.all('SELECT COUNT(*) AS n FROM customers', []))).length,
        1,
      );
    } finally {
      await pool.destroy();
    }
    assert.deepEqual(await tableCounts(testDatabase.admin), before);
  });
}
