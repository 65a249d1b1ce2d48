/**
 * Reading in memory: the records a request selects, in its order, after its skip and up to its
 * limit, in pages of its size — and its field names checked before a record is read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecordData } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { countInMemory, pagesInMemory, planMemoryRead } from '../../../../connectors/records/in-memory-read.js';
import { buildObjects } from '../../../../connectors/records/object-model.js';
import { parseExpression } from '../../../../definitions/expression/index.js';
import { parseOrder } from '../../../../definitions/order/parse-order.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

const system = {
  kind: 'System',
  id: 'shop',
  connector: 'file',
  connection: {},
  queries: {},
  objects: {
    Order: {
      key: ['id'],
      fields: { id: { type: 'Integer' }, customer: { type: 'String' }, total: { type: 'Number' } },
      groups: { addresses: { types: ['ship'], fields: { city: { type: 'String' } } } },
    },
  },
} as unknown as SystemDefinition;
const object = buildObjects(system, { object: () => ({}), group: () => ({}) }).get('Order')!;

const ORDERS: RecordData[] = Array.from({ length: 23 }, (_, index) => ({
  id: index + 1,
  customer: index % 3 === 0 ? null : `c${index % 5}`,
  total: (index * 37) % 100,
  addresses: index % 2 ? { ship: { city: index % 4 === 1 ? 'Leeds' : 'York' } } : {},
}));

/** The records as a source gives them: pages of 4. */
async function* source(): AsyncGenerator<RecordData[]> {
  for (let start = 0; start < ORDERS.length; start += 4) yield ORDERS.slice(start, start + 4);
}

async function read(request: Parameters<typeof planMemoryRead>[1]): Promise<{ ids: unknown[]; pages: number[] }> {
  const plan = planMemoryRead(object, request);
  const ids: unknown[] = [];
  const pages: number[] = [];
  for await (const page of pagesInMemory(source(), plan)) {
    pages.push(page.length);
    ids.push(...page.map((record) => record.id));
  }
  return { ids, pages };
}

test('a filter selects what the evaluator selects, in the order of the source, in pages of the requested size', async () => {
  const { ids, pages } = await read({ filter: parseExpression('total >= 50 AND customer IS NOT NULL'), pageSize: 3 });
  const expected = ORDERS.filter((o) => (o.total as number) >= 50 && o.customer !== null).map((o) => o.id);
  assert.deepEqual(ids, expected);
  assert.ok(expected.length > 6, 'the filter selects several pages');
  assert.ok(pages.slice(0, -1).every((size) => size === 3) && pages.at(-1)! <= 3, `pages ${pages.join(',')}`);
});

test('placeholders are values, and group fields are read at their paths', async () => {
  const { ids } = await read({
    filter: parseExpression('addresses.ship.city = #city#'),
    placeholders: (path) => (path[0] === 'city' ? 'Leeds' : undefined),
  });
  assert.deepEqual(
    ids,
    ORDERS.filter((o) => (o.addresses as { ship?: { city: string } }).ship?.city === 'Leeds').map((o) => o.id),
  );
});

/** Orders by customer with nulls first, then by id: what the sql connector's ORDER BY gives. */
function byCustomer(direction: 1 | -1): unknown[] {
  return [...ORDERS]
    .sort((a, b) => {
      const [x, y] = [a.customer as string | null, b.customer as string | null];
      if (x !== y) return direction * (x === null ? -1 : y === null ? 1 : x < y ? -1 : 1);
      return (a.id as number) - (b.id as number);
    })
    .map((o) => o.id);
}

test('skip and limit count selected records; an order sorts them with nulls first and the key breaking ties', async () => {
  assert.deepEqual((await read({ skip: 5, limit: 4 })).ids, [6, 7, 8, 9]);
  assert.deepEqual((await read({ limit: 0 })).ids, []);
  assert.deepEqual((await read({ order: parseOrder('customer') })).ids, byCustomer(1));
  assert.deepEqual((await read({ order: parseOrder('customer desc') })).ids, byCustomer(-1));
  assert.deepEqual((await read({ order: parseOrder('customer'), skip: 2, limit: 5, pageSize: 2 })).ids, byCustomer(1).slice(2, 7));
});

test('an id selects one record by its key, given as text or number', async () => {
  assert.deepEqual((await read({ id: { id: '7' } })).ids, [7]);
  assert.deepEqual((await read({ id: { id: 70 } })).ids, []);
});

test('undeclared fields and bad ids are refused before a record is read', () => {
  const refused = (request: Parameters<typeof planMemoryRead>[1], code: string, message: RegExp) =>
    assert.throws(
      () => planMemoryRead(object, request),
      (error: unknown) => error instanceof ConnectorError && error.code === code && message.test(error.message),
    );
  refused({ filter: parseExpression("nope = 'x'") }, 'unknown-field', /Order has no field 'nope'; its fields are id, customer, total/);
  refused({ order: parseOrder('addresses.city') }, 'unknown-field', /addresses\.ship\.city/);
  refused({ id: { id: 'x' } }, 'invalid-value', /not a valid Integer value for its key field id/);
  refused({ id: { customer: 'c1' } }, 'unknown-field', /the key of Order is id/);
  refused({ limit: -1 }, 'invalid-value', /limit must be a whole number/);
});

test('count counts what a read would select', async () => {
  const plan = planMemoryRead(object, { filter: parseExpression('total < 30') });
  assert.equal(await countInMemory(source(), plan), ORDERS.filter((o) => (o.total as number) < 30).length);
});

test('an aborted read stops', async () => {
  const controller = new AbortController();
  const pages: number[] = [];
  await assert.rejects(async () => {
    for await (const page of pagesInMemory(source(), planMemoryRead(object, { pageSize: 2 }), controller.signal)) {
      pages.push(page.length);
      controller.abort();
    }
  }, /abort/i);
  assert.deepEqual(pages, [2]);
});

test('an Integer past 2^53, carried as its digits, is ordered as the number it is', () => {
  const ids = ['10000000000000000000', 12, '-9007199254740993', '9007199254740993', -5, null, 'not a number'];
  const records = ids.map((id, index) => ({ id, customer: null, total: index }));
  const ascending = planMemoryRead(object, { order: parseOrder('id asc') }).compare!;
  assert.deepEqual(
    [...records].sort(ascending).map((record) => record.id),
    [null, '-9007199254740993', -5, 12, '9007199254740993', '10000000000000000000', 'not a number'],
  );
  const descending = planMemoryRead(object, { order: parseOrder('id desc') }).compare!;
  assert.deepEqual(
    [...records].sort(descending).map((record) => record.id),
    ['not a number', '10000000000000000000', '9007199254740993', 12, -5, '-9007199254740993', null],
  );
});

test('a Number a double cannot hold, carried as exact decimal text, is ordered by value among the numbers', () => {
  const totals = ['9007199254740993', 9007199254740992, 1e20, 12, '0.12345678901234567890', 5.5, null, Number.POSITIVE_INFINITY, 'n/a'];
  const records = totals.map((total, index) => ({ id: index + 1, customer: null, total }));
  const ascending = planMemoryRead(object, { order: parseOrder('total asc') }).compare!;
  assert.deepEqual(
    [...records].sort(ascending).map((record) => record.total),
    [null, '0.12345678901234567890', 5.5, 12, 9007199254740992, '9007199254740993', 1e20, Number.POSITIVE_INFINITY, 'n/a'],
  );
});
