/**
 * Free queries of the odata connector against SAP CAP: a GET of a resource path with its options,
 * `#FlowFilter#` replaced by the compiled filter (typed from $metadata, placeholders as data), the
 * count statement, Limit and Skip as $top and $skip, typed columns, the System's limits, and every
 * statement that is not a GET below the service root refused before anything is sent.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, QueryRequest } from '../../../../connectors/connection.js';
import * as odata from '../../../../connectors/odata/index.js';
import { parseExpression, resolvePath } from '../../../../definitions/expression/index.js';
import { describeWithODataServer } from '../../../support/odata-server.js';
import { rejectsWith } from '../conformance.js';
import { ADDRESSES, CUSTOMERS } from '../crm-fixture.js';
import { createCrm, crmSystem } from './odata-crm.js';

const STATEMENT = 'Customers?$select=id,name,active&$filter=score ne null and #FlowFilter#&$orderby=id desc';
const COUNT = 'Customers/$count?$filter=score ne null and #FlowFilter#';
const COLUMNS = [
  { name: 'id', type: 'Integer' },
  { name: 'name', type: 'String' },
  { name: 'active', type: 'Boolean' },
] as const;

function request(filter: string | undefined, placeholders: Record<string, unknown> = {}, more: Partial<QueryRequest> = {}): QueryRequest {
  return {
    statement: STATEMENT,
    countStatement: COUNT,
    columns: [...COLUMNS],
    ...(filter === undefined
      ? {}
      : { filter: parseExpression(filter), placeholders: (path: readonly string[]) => resolvePath(placeholders, path) }),
    ...more,
  };
}

await describeWithODataServer('odata connector free queries', {}, (server) => {
  let connection: Connection;
  before(async () => {
    await createCrm(server());
    connection = odata.createConnection(crmSystem(server(), { limits: { queryRows: 30, queryBytes: '32mib' } }), {
      baseDirectory: process.cwd(),
    });
  });
  after(async () => {
    await connection?.close();
  });

  test('#FlowFilter# is the compiled filter; rows keep the statement order and are typed by the columns', async () => {
    const result = await connection.query(request("active = true AND name LIKE 'A%'"));
    const expected = CUSTOMERS.filter((row) => row.score !== null && row.active === true && row.name.startsWith('A'))
      .sort((a, b) => b.id - a.id)
      .map((row) => ({ id: row.id, name: row.name, active: true }));
    assert.deepEqual(result.rows, expected);
    assert.equal(result.total, expected.length);
  });

  test('without a filter #FlowFilter# is true; Limit and Skip are $top and $skip', async () => {
    const all = CUSTOMERS.filter((row) => row.score !== null).sort((a, b) => b.id - a.id);
    const result = await connection.query(request(undefined, {}, { limit: 3, skip: 2 }));
    assert.deepEqual(
      result.rows.map((row) => row.id),
      all.slice(2, 5).map((row) => row.id),
    );
    assert.equal(result.total, all.length);
  });

  test('placeholders are data, never syntax', async () => {
    for (const value of ["' or 1 eq 1", ') or true or (', "x') or contains(name,'"]) {
      const result = await connection.query(request('name = #v#', { v: value }));
      assert.deepEqual(result.rows, [], value);
      assert.equal(result.total, 0);
    }
    assert.deepEqual((await connection.query(request('name = #v#', { v: "O'Brien" }))).rows, [{ id: 7, name: "O'Brien", active: null }]);
  });

  test('a navigation path reads its entities; the filter is typed from them; rows without columns come as the service gives them', async () => {
    const result = await connection.query({
      statement: 'GET Customers(2)/addresses?$filter=#FlowFilter#&$select=type,city',
      filter: parseExpression("type = 'main'"),
    });
    const main = ADDRESSES.find((row) => row.customer_id === 2 && row.type === 'main')!;
    // CAP adds the key to what $select names.
    assert.deepEqual(result.rows, [{ customer_id: 2, type: 'main', city: main.city }]);
  });

  test('statements that are not a GET below the service root are refused before anything is sent', async () => {
    await rejectsWith(() => connection.query({ statement: 'DELETE Customers(1)' }), 'read-only', /names the method DELETE/);
    await rejectsWith(() => connection.query({ statement: 'POST Customers' }), 'read-only');
    await rejectsWith(() => connection.query({ statement: '$batch' }), 'read-only', /names \$batch/);
    await rejectsWith(() => connection.query({ statement: 'Customers/%24batch' }), 'read-only');
    await rejectsWith(() => connection.query({ statement: 'http://127.0.0.1:1/odata/v4/crm/Customers' }), 'invalid-value');
    await rejectsWith(() => connection.query({ statement: '/odata/v4/crm/Customers' }), 'invalid-value');
    await rejectsWith(() => connection.query({ statement: 'Customers/../../admin' }), 'invalid-value');
    // The URL parser reads \ as / and drops tabs and line breaks: each of these would climb out.
    for (const statement of ['Customers\\..\\..\\admin', '\\odata\\v4\\admin', 'Customers/.\t./.\n./admin', 'Customers/%2E%2E\\..\\x'])
      await rejectsWith(() => connection.query({ statement }), 'invalid-value', /leaves the service root/);
    await rejectsWith(() => connection.query({ statement: 'Customers?$top=1', limit: 2 }), 'invalid-value', /not both/);
    assert.equal((await connection.query({ statement: 'Customers?$top=1&$select=id' })).rows.length, 1);
  });

  test('filters the statement cannot take are refused', async () => {
    await rejectsWith(() => connection.query(request('nope = 1')), 'unknown-field', /CrmService\.Customers does not have/);
    await rejectsWith(() => connection.query(request("tolower(name) = 'ada'")), 'unsupported', /query filter/);
    await rejectsWith(
      () => connection.query({ statement: 'Customers?$filter=#FlowFilter#', filter: parseExpression('name = 0') }),
      'unsupported',
    );
  });

  test("the System's limits: more rows than queryRows is too-large", async () => {
    await rejectsWith(() => connection.query({ statement: 'Customers?$select=id' }), 'too-large', /limits\.queryRows/);
    const small = odata.createConnection(crmSystem(server(), { limits: { queryRows: 100, queryBytes: 200 } }), {
      baseDirectory: process.cwd(),
    });
    try {
      await rejectsWith(() => small.query({ statement: 'Customers?$select=id,name' }), 'too-large', /limits\.queryBytes/);
    } finally {
      await small.close();
    }
  });
});
