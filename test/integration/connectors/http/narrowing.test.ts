/**
 * Declared filter parameters narrow what is fetched, and the answer is exact whatever the API does
 * with them: the same reads against an API that filters by them and one that ignores them give the
 * same records. A declared sort is sent when it gives the whole order (and the answer is checked to
 * come in it); any other order is made in memory.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { compareForOrder } from '../../../../connectors/records/in-memory-read.js';
import { evaluateCondition, parseExpression, recordScope, resolvePath } from '../../../../definitions/expression/index.js';
import { parseOrder } from '../../../../definitions/order/parse-order.js';
import { sendJson, startFixtureServer, type FixtureServer, type LoggedRequest } from '../../../support/rest-fixture-server.js';
import { ids, itemConnection, items, readAll } from './fixture-system.js';

const ITEMS = items(40);
let server: FixtureServer;

/** The records `request` selects by the parameters this API understands. */
function filtered(request: LoggedRequest): Array<Record<string, unknown>> {
  let selected = ITEMS;
  const rank = request.query.getAll('rank');
  if (rank.length > 0) selected = selected.filter((item) => rank.includes(String(item.rank)));
  const has = request.query.get('email_has');
  if (has !== null)
    selected = selected.filter((item) => typeof item.email === 'string' && item.email.toLowerCase().includes(has.toLowerCase()));
  // One parameter of names joined by ';', split as such an API splits it.
  const names = request.query.get('names');
  if (names !== null) selected = selected.filter((item) => names.split(';').includes(String(item.name)));
  const from = request.query.get('id_from');
  if (from !== null) selected = selected.filter((item) => Number(item.id) >= Number(from));
  return selected;
}

/** Sorted as Syncline sorts (nulls first, code units), or with nulls last as many APIs do. */
function sorted(request: LoggedRequest, nullsLast: boolean): Array<Record<string, unknown>> {
  const fields = (request.query.get('order_by') ?? '').split(',').filter(Boolean);
  const directions = (request.query.get('dir') ?? '').split(',');
  return [...ITEMS].sort((a, b) => {
    for (const [index, field] of fields.entries()) {
      const left = a[field];
      const right = b[field];
      let order = compareForOrder(left, right);
      if (nullsLast && (left === null) !== (right === null)) order = left === null ? 1 : -1;
      if (order !== 0) return directions[index] === 'desc' ? -order : order;
    }
    return 0;
  });
}

const page = (records: Array<Record<string, unknown>>, request: LoggedRequest) => {
  const start = Number(request.query.get('offset') ?? 0);
  return records.slice(start, start + Number(request.query.get('limit') ?? 100));
};

before(async () => {
  server = await startFixtureServer();
  server.route('GET', '/filtering', (request, response) => sendJson(response, 200, page(filtered(request), request)));
  server.route('GET', '/ignoring', (request, response) => sendJson(response, 200, page(ITEMS, request)));
  server.route('GET', '/filtering/*', (request, response) => {
    const item = ITEMS.find((candidate) => String(candidate.id) === request.path.split('/').pop());
    return item === undefined ? sendJson(response, 404, {}) : sendJson(response, 200, item);
  });
  server.route('GET', '/sorting', (request, response) => sendJson(response, 200, page(sorted(request, false), request)));
  server.route('GET', '/nulls-last', (request, response) => sendJson(response, 200, page(sorted(request, true), request)));
});
after(() => server.close());

const filters = [
  { field: 'rank', op: 'in', param: 'rank' },
  { field: 'email', op: 'contains', param: 'email_has' },
  { field: 'id', op: '>=', param: 'id_from' },
];
const options = (path: string) => ({ list: { path }, paging: { style: 'offset', pageSize: 10 }, filters });
/** The filter parameters of each request, a repeated one as a list. */
const queries = () =>
  server.requests.map((request) => {
    const names = [...new Set(request.query.keys())].filter((name) => name !== 'offset' && name !== 'limit');
    return Object.fromEntries(
      names.map((name) => [name, request.query.getAll(name).length > 1 ? request.query.getAll(name) : request.query.get(name)]),
    );
  });

describe('filter parameters', () => {
  const cases = [
    "rank = 1 AND contains(email, '1')",
    "rank IN (2, 3) AND email LIKE '%@example.com' AND id > 30",
    "contains(email, 'I1')",
    "rank = 1 OR contains(email, '2')",
    'NOT (rank = 1) AND id >= 35',
    "email = null AND rank = '4'",
  ];
  for (const filter of cases) {
    test(`${filter}: exact, narrowed or not`, async () => {
      const ast = parseExpression(filter);
      const expected = ids(ITEMS.filter((item) => evaluateCondition(ast, recordScope(item))));
      for (const path of ['/filtering', '/ignoring']) {
        const connection = itemConnection(server.base, options(path));
        assert.deepEqual(ids((await readAll(connection, { filter: ast, pageSize: 4 })).records), expected, path);
        assert.equal(await connection.count('Item', { filter: ast }), expected.length, path);
      }
    });
  }

  test('what is sent: the terms the declared parameters can carry, nothing of an OR', async () => {
    const connection = itemConnection(server.base, options('/filtering'));
    const sent = async (filter: string, placeholders: Record<string, unknown> = {}) => {
      server.requests.length = 0;
      await readAll(connection, { filter: parseExpression(filter), placeholders: (path) => resolvePath(placeholders, path) });
      return queries()[0];
    };
    assert.deepEqual(await sent("rank = 1 AND contains(email, '1')"), { rank: '1', email_has: '1' });
    assert.deepEqual(await sent('rank IN (2, 3) AND id > #min#', { min: '30' }), { rank: ['2', '3'], id_from: '30' });
    assert.deepEqual(await sent("rank = 1 OR contains(email, '2')"), {});
    assert.deepEqual(await sent('rank = #nothing#'), {});
    server.requests.length = 0;
    await readAll(connection, { filter: parseExpression('rank = 1 AND id >= 30') });
    const fetched = server.requests.length;
    assert.ok(fetched <= 2, `the narrowed read took ${fetched} requests for one page of answers`);
  });

  test('an IN list with a value holding the separator is not sent, so no record of it is lost', async () => {
    const named = itemConnection(server.base, {
      ...options('/filtering'),
      fields: { id: { type: 'Integer' }, name: { type: 'String' }, rank: { type: 'Integer' }, email: { type: 'String' } },
      filters: [...filters, { field: 'name', op: 'in', param: 'names', separator: ';' }],
    });
    const read = async (filter: string) => {
      server.requests.length = 0;
      const found = ids((await readAll(named, { filter: parseExpression(filter) })).records);
      return { found, sent: queries()[0] };
    };
    assert.deepEqual(await read("name IN ('item 3', 'item 5')"), { found: [3, 5], sent: { names: 'item 3;item 5' } });
    // 'item 7;x' sent joined would be split into 'item 7' and 'x': the record named 'item 7;x' lost.
    ITEMS.push({ id: 41, name: 'item 7;x', rank: 1, email: null });
    try {
      assert.deepEqual(await read("name IN ('item 7;x', 'item 9')"), { found: [9, 41], sent: {} });
      assert.deepEqual(await read("name IN ('item 7;x') AND rank = 1"), { found: [41], sent: { rank: '1' } });
    } finally {
      ITEMS.pop();
    }
  });

  test('an id without a get path is searched in the narrowed list; with one, it is asked for', async () => {
    server.requests.length = 0;
    const listed = itemConnection(server.base, { ...options('/filtering'), filters: [{ field: 'id', op: '=', param: 'id_from' }] });
    assert.deepEqual(ids((await readAll(listed, { id: { id: '37' } })).records), [37]);
    assert.deepEqual(queries()[0], { id_from: '37' });
    const got = itemConnection(server.base, { ...options('/filtering'), get: { path: '/filtering/{id}' } });
    server.requests.length = 0;
    assert.deepEqual(ids((await readAll(got, { id: { id: 12 } })).records), [12]);
    assert.deepEqual(ids((await readAll(got, { id: { id: 99 } })).records), []);
    assert.deepEqual(
      server.requests.map((request) => request.path),
      ['/filtering/12', '/filtering/99'],
    );
  });
});

describe('sort', () => {
  const sortOptions = (path: string) => ({
    list: { path },
    paging: { style: 'offset', pageSize: 10 },
    sort: { param: 'order_by', directionParam: 'dir', fields: ['id', 'name', 'rank', 'email'] },
  });
  const inOrder = (clause: string) => {
    const terms = parseOrder(clause);
    return ids(
      [...ITEMS].sort((a, b) => {
        for (const term of terms) {
          const order = compareForOrder(resolvePath(a, term.field), resolvePath(b, term.field));
          if (order !== 0) return term.direction === 'asc' ? order : -order;
        }
        return Number(a.id) - Number(b.id);
      }),
    );
  };

  test('an order the declared fields cover is sent with the key after it, and skip and limit with it', async () => {
    const connection = itemConnection(server.base, sortOptions('/sorting'));
    server.requests.length = 0;
    const { records } = await readAll(connection, { order: parseOrder('rank desc, name'), skip: 3, limit: 12, pageSize: 5 });
    assert.deepEqual(ids(records), inOrder('rank desc, name').slice(3, 15));
    assert.deepEqual(Object.fromEntries(server.requests[0]!.query), {
      order_by: 'rank,name,id',
      dir: 'desc,asc,asc',
      offset: '3',
      limit: '5',
    });
  });

  test('an order it does not cover is made in memory, over every record', async () => {
    const connection = itemConnection(server.base, { ...sortOptions('/sorting'), sort: { param: 'order_by', fields: ['id', 'name'] } });
    server.requests.length = 0;
    const { records } = await readAll(connection, { order: parseOrder('rank desc'), limit: 5 });
    assert.deepEqual(ids(records), inOrder('rank desc').slice(0, 5));
    assert.ok(
      server.requests.every((request) => !request.query.has('order_by')),
      'no sort parameter was sent',
    );
    assert.equal(server.requests.length, 5, 'every page was read before the first record could be given');
  });

  test('an API that sorts otherwise than it was declared to fails the read, not the order', async () => {
    const connection = itemConnection(server.base, sortOptions('/nulls-last'));
    assert.deepEqual(ids((await readAll(connection, { order: parseOrder('name') })).records), inOrder('name'));
    await assert.rejects(
      () => readAll(connection, { order: parseOrder('email') }),
      (error: unknown) =>
        error instanceof ConnectorError &&
        error.code === 'definition-mismatch' &&
        /in another order than Syncline sorts: objects\.Item\.sort\.fields names a field the API sorts otherwise/.test(error.message),
    );
  });
});
