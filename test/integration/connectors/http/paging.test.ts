/**
 * Each paging style against a server that pages that way: what is asked page after page, where a
 * read ends, skip and limit pushed into the paging where nothing is filtered in memory, and the
 * paging faults — a cursor that comes round again, a next link to another origin (never followed:
 * the credentials would go with it), pages that repeat records sent already (stopped, while a
 * record moved a page on by an insert during the read is only passed over).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { parseExpression } from '../../../../definitions/expression/index.js';
import { parseOrder } from '../../../../definitions/order/parse-order.js';
import { sendJson, startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';
import { ids, itemConnection, items, readAll } from './fixture-system.js';

const ITEMS = items(23);
let server: FixtureServer;
let foreign: FixtureServer;

const slice = (start: number, size: number) => ITEMS.slice(start, start + size);
const asked = (path: string) =>
  server.requests.filter((request) => request.path === path).map((request) => Object.fromEntries(request.query));

before(async () => {
  server = await startFixtureServer();
  foreign = await startFixtureServer();
  server.route('GET', '/offset', (request, response) => {
    const start = Number(request.query.get('offset') ?? 0);
    sendJson(response, 200, slice(start, Number(request.query.get('limit') ?? 10)));
  });
  server.route('GET', '/offset-total', (request, response) => {
    const start = Number(request.query.get('skip') ?? 0);
    sendJson(response, 200, { items: slice(start, Number(request.query.get('take'))) }, { 'x-total': String(ITEMS.length) });
  });
  server.route('GET', '/pages', (request, response) => {
    const size = Number(request.query.get('per_page'));
    const page = Number(request.query.get('p'));
    sendJson(response, 200, { results: slice(page * size, size), count: ITEMS.length });
  });
  // An API with a page size of its own (3) below what is asked: pages of 3, numbered as such.
  server.route('GET', '/capped-pages', (request, response) => {
    const size = Math.min(3, Number(request.query.get('per_page')));
    const page = Number(request.query.get('p'));
    const total = request.query.has('untold') ? {} : { count: ITEMS.length };
    sendJson(response, 200, { results: slice(page * size, size), ...total });
  });
  server.route('GET', '/cursor', (request, response) => {
    const at = Number(request.query.get('after') ?? 0);
    const size = Number(request.query.get('limit'));
    const next = at + size < ITEMS.length ? at + size : null;
    sendJson(response, 200, { data: slice(at, size), paging: { next } });
  });
  server.route('GET', '/links', (request, response) => {
    const at = Number(request.query.get('from') ?? 0);
    const size = Number(request.query.get('size') ?? 5);
    const next = at + size < ITEMS.length ? `${server.base}/links?from=${at + size}&size=${size}` : undefined;
    sendJson(
      response,
      200,
      slice(at, size),
      next === undefined ? {} : { link: `<${next}>; rel="next", <${server.base}/links>; rel="first"` },
    );
  });
  server.route('GET', '/body-links', (request, response) => {
    const at = Number(request.query.get('from') ?? 0);
    sendJson(response, 200, { items: slice(at, 10), links: { next: at + 10 < ITEMS.length ? `/body-links?from=${at + 10}` : null } });
  });
  server.route('GET', '/all', (_request, response) => sendJson(response, 200, ITEMS));
  // Past the records, empty pages that still name a next one; each is new, so no loop shows, and
  // the server gives up naming one after 10 empty pages so that a failing test ends.
  server.route('GET', '/endless-cursor', (request, response) => {
    const at = Number(request.query.get('cursor') ?? 0);
    sendJson(response, 200, { data: slice(at, 10), next: at < 130 ? String(at + 10) : null });
  });
  server.route('GET', '/endless-links', (request, response) => {
    const at = Number(request.query.get('from') ?? 0);
    sendJson(response, 200, slice(at, 10), at < 130 ? { link: `<${server.base}/endless-links?from=${at + 10}>; rel="next"` } : {});
  });
  server.route('GET', '/link-loop', (request, response) => {
    const at = Number(request.query.get('from') ?? 0);
    sendJson(response, 200, slice(at, 5), { link: `<${server.base}/link-loop?from=${at === 0 ? 5 : 0}>; rel="next"` });
  });
  server.route('GET', '/loop', (request, response) =>
    sendJson(response, 200, { data: request.query.has('cursor') ? slice(2, 2) : slice(0, 2), next: 'again' }),
  );
  server.route('GET', '/elsewhere', (_request, response) =>
    sendJson(response, 200, slice(0, 5), { link: `<${foreign.base}/elsewhere?page=2>; rel="next"` }),
  );
  foreign.route('GET', '/elsewhere', (_request, response) => sendJson(response, 200, []));
});
after(async () => {
  await server.close();
  await foreign.close();
});

describe('offset', () => {
  const options = { list: { path: '/offset' }, paging: { style: 'offset', pageSize: 10 } };

  test('pages by offset until an empty page, whatever the pages of the stream', async () => {
    server.requests.length = 0;
    const { records, pages } = await readAll(itemConnection(server.base, options), { pageSize: 7 });
    assert.deepEqual(ids(records), ids(ITEMS));
    assert.deepEqual(pages, [7, 7, 7, 2]);
    // The stream's pages of 7 are asked for as such: nothing is selected in memory.
    assert.deepEqual(asked('/offset'), [
      { offset: '0', limit: '7' },
      { offset: '7', limit: '7' },
      { offset: '14', limit: '7' },
      { offset: '21', limit: '7' },
      { offset: '23', limit: '7' },
    ]);
  });

  test('skip and limit go to the API when nothing is selected in memory', async () => {
    server.requests.length = 0;
    const { records } = await readAll(itemConnection(server.base, options), { skip: 5, limit: 8, pageSize: 3 });
    assert.deepEqual(ids(records), [6, 7, 8, 9, 10, 11, 12, 13]);
    assert.deepEqual(asked('/offset'), [
      { offset: '5', limit: '3' },
      { offset: '8', limit: '3' },
      { offset: '11', limit: '2' },
    ]);
  });

  test('with a filter, skip and limit are counted in memory over everything fetched', async () => {
    server.requests.length = 0;
    const { records } = await readAll(itemConnection(server.base, options), { filter: parseExpression('rank = 1'), skip: 1, limit: 2 });
    assert.deepEqual(ids(records), [6, 11]);
    assert.deepEqual(asked('/offset')[0], { offset: '0', limit: '10' });
  });

  test('a total in a header ends the read without asking for an empty page; count asks for one record', async () => {
    server.requests.length = 0;
    const connection = itemConnection(server.base, {
      list: { path: '/offset-total' },
      records: 'items',
      total: { header: 'X-Total' },
      paging: { style: 'offset', offsetParam: 'skip', limitParam: 'take', pageSize: 10 },
    });
    assert.deepEqual(ids((await readAll(connection)).records), ids(ITEMS));
    assert.deepEqual(
      asked('/offset-total').map((query) => query.skip),
      ['0', '10', '20'],
    );
    server.requests.length = 0;
    assert.equal(await connection.count('Item'), 23);
    assert.deepEqual(asked('/offset-total'), [{ skip: '0', take: '1' }]);
    assert.equal(
      await connection.count('Item', { filter: parseExpression('rank >= 3') }),
      ITEMS.filter((item) => Number(item.rank) >= 3).length,
    );
    // Only the told total is cheap: a filtered count, or one without a total, reads the records.
    assert.equal(connection.countsCheaply?.('Item'), true);
    assert.equal(connection.countsCheaply?.('Item', { filter: parseExpression('rank >= 3') }), false);
    const untold = itemConnection(server.base, { list: { path: '/offset-total' }, records: 'items', paging: { style: 'offset' } });
    assert.equal(untold.countsCheaply?.('Item'), false);
  });
});

test('page: zero-based pages of one size, a skip inside a page passed over', async () => {
  server.requests.length = 0;
  const connection = itemConnection(server.base, {
    list: { path: '/pages' },
    records: 'results',
    total: { expression: 'count' },
    paging: { style: 'page', pageParam: 'p', sizeParam: 'per_page', firstPage: 0, pageSize: 5 },
  });
  assert.deepEqual(ids((await readAll(connection)).records), ids(ITEMS));
  assert.deepEqual(
    asked('/pages').map((query) => query.p),
    ['0', '1', '2', '3', '4'],
  );
  server.requests.length = 0;
  assert.deepEqual(ids((await readAll(connection, { skip: 7, limit: 4 })).records), [8, 9, 10, 11]);
  assert.deepEqual(asked('/pages'), [
    { p: '1', per_page: '5' },
    { p: '2', per_page: '5' },
  ]);
  assert.equal(await connection.count('Item'), 23);
});

describe('page, with an API that answers fewer per page than asked', () => {
  const options = (query: Record<string, string> = {}) => ({
    list: { path: '/capped-pages', query },
    records: 'results',
    total: { expression: 'count' },
    paging: { style: 'page', pageParam: 'p', sizeParam: 'per_page', firstPage: 0, pageSize: 5 },
  });

  test('reads to the total, not to pages × the size asked', async () => {
    server.requests.length = 0;
    assert.deepEqual(ids((await readAll(itemConnection(server.base, options()))).records), ids(ITEMS));
    // 23 records in pages of 3: the eighth page holds the last two, and the total says it is the last.
    assert.equal(asked('/capped-pages').length, 8);
  });

  test('without a total, a page shorter than those before it is the last', async () => {
    server.requests.length = 0;
    assert.deepEqual(ids((await readAll(itemConnection(server.base, options({ untold: '1' })))).records), ids(ITEMS));
    assert.equal(asked('/capped-pages').length, 8, 'no empty page asked after the short one');
  });

  test('a skip pushed into page numbers of the size asked fails the read instead of answering other records', async () => {
    await assert.rejects(
      () => readAll(itemConnection(server.base, options()), { skip: 7 }),
      (error: unknown) => error instanceof ConnectorError && error.code === 'definition-mismatch' && /paging\.pageSize/.test(error.message),
    );
  });
});

test('cursor: the next cursor from the body, sent back until there is none', async () => {
  server.requests.length = 0;
  const connection = itemConnection(server.base, {
    list: { path: '/cursor' },
    records: 'data',
    paging: { style: 'cursor', cursor: 'paging.next', cursorParam: 'after', pageSize: 10 },
  });
  assert.deepEqual(ids((await readAll(connection)).records), ids(ITEMS));
  assert.deepEqual(asked('/cursor'), [{ limit: '10' }, { after: '10', limit: '10' }, { after: '20', limit: '10' }]);
  server.requests.length = 0;
  assert.deepEqual(ids((await readAll(connection, { limit: 3 })).records), [1, 2, 3]);
  assert.deepEqual(asked('/cursor'), [{ limit: '3' }], 'a limit asks for no more');
  // A skip cannot be sent as a cursor: the records before it are read and passed over.
  assert.deepEqual(ids((await readAll(connection, { skip: 21 })).records), [22, 23]);
});

test('link: absolute next links of the Link header, followed as they are', async () => {
  server.requests.length = 0;
  const connection = itemConnection(server.base, { list: { path: '/links' }, paging: { style: 'link', sizeParam: 'size', pageSize: 10 } });
  assert.deepEqual(ids((await readAll(connection)).records), ids(ITEMS));
  assert.deepEqual(asked('/links'), [{ size: '10' }, { from: '10', size: '10' }, { from: '20', size: '10' }]);
});

test('link: a next link in the body, relative to the answer', async () => {
  const connection = itemConnection(server.base, {
    list: { path: '/body-links' },
    records: 'items',
    paging: { style: 'link', next: 'links.next' },
  });
  assert.deepEqual(ids((await readAll(connection)).records), ids(ITEMS));
});

test('none: one answer holds every record', async () => {
  server.requests.length = 0;
  const connection = itemConnection(server.base, { list: { path: '/all' } });
  const { records, pages } = await readAll(connection, { pageSize: 10 });
  assert.deepEqual(ids(records), ids(ITEMS));
  assert.deepEqual(pages, [10, 10, 3]);
  assert.equal(server.requests.length, 1);
});

test('a cursor that comes round again fails the read instead of reading forever', async () => {
  const connection = itemConnection(server.base, { list: { path: '/loop' }, records: 'data', paging: { style: 'cursor', cursor: 'next' } });
  await assert.rejects(
    () => readAll(connection),
    (error: unknown) =>
      error instanceof ConnectorError && error.code === 'definition-mismatch' && /the same cursor came twice/.test(error.message),
  );
});

test('cursor and link: an empty page ends the read, whatever next page it names', async () => {
  server.requests.length = 0;
  const cursor = itemConnection(server.base, {
    list: { path: '/endless-cursor' },
    records: 'data',
    paging: { style: 'cursor', cursor: 'next', pageSize: 10 },
  });
  assert.deepEqual(ids((await readAll(cursor)).records), ids(ITEMS));
  assert.equal(asked('/endless-cursor').length, 4, 'three pages and one empty one');
  const link = itemConnection(server.base, { list: { path: '/endless-links' }, paging: { style: 'link' } });
  assert.deepEqual(ids((await readAll(link)).records), ids(ITEMS));
  assert.equal(asked('/endless-links').length, 4, 'three pages and one empty one');
});

test('a next link that comes round again fails the read instead of reading forever', async () => {
  const connection = itemConnection(server.base, { list: { path: '/link-loop' }, paging: { style: 'link' } });
  await assert.rejects(
    () => readAll(connection),
    (error: unknown) =>
      error instanceof ConnectorError && error.code === 'definition-mismatch' && /the same next link came twice/.test(error.message),
  );
});

test('a next link to another origin is not followed', async () => {
  const connection = itemConnection(server.base, { list: { path: '/elsewhere' }, paging: { style: 'link' } });
  const error = await readAll(connection).then(
    () => assert.fail('the read went on'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ConnectorError && error.code === 'unavailable', String(error));
  assert.match(error.message, /another host, scheme or port than connection\.baseUrl/);
  assert.doesNotMatch(error.message, new RegExp(foreign.base.replace(/[.:/]/g, '\\$&')));
  assert.equal(foreign.requests.length, 0, 'nothing was sent to the other origin');
});

describe('an API whose pages repeat', () => {
  const deepText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  /** Items `ids` with a property nested `depth` levels deep, as JSON text: JSON.stringify of it would overflow the stack. */
  const deepItems = (ids: readonly (number | null)[], depth: number) =>
    `[${ids.map((id) => `{"id":${id},"name":"deep ${id}","history":${deepText(depth)}}`).join(',')}]`;
  const sendText = (response: ServerResponse, text: string) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  };
  let growing: Array<Record<string, unknown>> = [];

  before(() => {
    // Ignores the offset but for its parity of pages: items 1-6, 7-12, 1-6, 7-12…
    server.route('GET', '/alternate', (request, response) => {
      const turn = Math.floor(Number(request.query.get('offset') ?? 0) / 6) % 2;
      sendJson(response, 200, slice(turn * 6, 6));
    });
    // A new record ahead of the same five, page after page.
    server.route('GET', '/one-new', (request, response) => {
      const offset = Number(request.query.get('offset') ?? 0);
      sendJson(response, 200, [{ id: 100 + offset, name: 'new' }, ...slice(0, 5)]);
    });
    // Next links that change, over the same five records.
    server.route('GET', '/new-links', (request, response) => {
      const page = Number(request.query.get('p') ?? 1);
      sendJson(response, 200, slice(0, 5), { link: `<${server.base}/new-links?p=${page + 1}>; rel="next"` });
    });
    // Two records inserted at the front after the second request: the last page holds records read already.
    server.route('GET', '/growing', (request, response) => {
      const offset = Number(request.query.get('offset') ?? 0);
      const limit = Number(request.query.get('limit'));
      sendJson(response, 200, growing.slice(offset, offset + limit));
      if (asked('/growing').length === 2) growing.unshift({ id: 101, name: 'inserted' }, { id: 102, name: 'inserted' });
    });
    server.route('GET', '/deep', (request, response) => {
      const offset = Number(request.query.get('offset') ?? 0);
      sendText(response, deepItems([1, 2, 3, 4, 5].slice(offset, offset + 2), 5000));
    });
    // Records without their key, nested deep, the same page whatever the offset.
    server.route('GET', '/deep-keyless', (_request, response) => sendText(response, deepItems([null, null], 5000)));
  });

  const offset = (path: string) => ({ list: { path }, paging: { style: 'offset', pageSize: 10 } });
  const stopped = (pattern: RegExp) => (error: unknown) => {
    assert.ok(error instanceof ConnectorError && error.code === 'definition-mismatch', String(error));
    assert.match(error.message, /^system 'api' answered GET \/[\w-]+ with records it had sent already, page after page \(/);
    assert.match(error.message, pattern);
    assert.doesNotMatch(error.message, /RangeError|call stack/);
    assert.equal(error.details?.reason, 'repeated-records');
    return true;
  };

  test('two pages in turn: the read stops at the second page of nothing new, streamed or ordered in memory', async () => {
    server.requests.length = 0;
    await assert.rejects(
      () => readAll(itemConnection(server.base, offset('/alternate'))),
      stopped(
        /\(6 of the 6 of the last page, the first Item id 7\), as if it ignored the offset parameter, or objects\.Item\.paging is not how it pages/,
      ),
    );
    assert.equal(asked('/alternate').length, 4, 'items 1-6, 7-12, then each again');
    // An order made in memory holds every record read: it held copies until the time limit before.
    await assert.rejects(
      () => readAll(itemConnection(server.base, offset('/alternate')), { order: parseOrder('name desc') }),
      stopped(/Item id 7/),
    );
  });

  test('one page answered whatever the page number is stopped', async () => {
    const connection = itemConnection(server.base, { list: { path: '/all' }, paging: { style: 'page', pageSize: 5 } });
    await assert.rejects(
      () => readAll(connection),
      stopped(/\(23 of the 23 of the last page, the first Item id 1\), as if it ignored the page parameter/),
    );
  });

  test('a new record ahead of those sent already is stopped too', async () => {
    server.requests.length = 0;
    await assert.rejects(
      () => readAll(itemConnection(server.base, offset('/one-new'))),
      stopped(/\(5 of the 6 of the last page, the first Item id 1\)/),
    );
    assert.equal(asked('/one-new').length, 3);
  });

  test('next links that change over the same records are stopped', async () => {
    server.requests.length = 0;
    const connection = itemConnection(server.base, { list: { path: '/new-links' }, paging: { style: 'link' } });
    await assert.rejects(() => readAll(connection), stopped(/as if its next links led back to records it had sent/));
    assert.equal(asked('/new-links').length, 3);
  });

  test('records moved a page on by inserts during the read come once, and the read ends as the list does', async () => {
    growing = items(20);
    server.requests.length = 0;
    const { records } = await readAll(itemConnection(server.base, offset('/growing')));
    assert.deepEqual(ids(records), ids(items(20)), 'items 19 and 20, moved into the third page, not twice');
    assert.deepEqual(
      asked('/growing').map((query) => query.offset),
      ['0', '10', '20', '22'],
      'a page of nothing new, then the empty page',
    );
  });

  test('a record nested 5,000 levels deep in a property not declared reads as any other', async () => {
    const { records } = await readAll(itemConnection(server.base, { list: { path: '/deep' }, paging: { style: 'offset', pageSize: 2 } }));
    assert.deepEqual(ids(records), [1, 2, 3, 4, 5]);
    assert.equal(records[0]?.name, 'deep 1');
  });

  test('records without a key, nested 5,000 levels deep, repeated: stopped by their content, not a RangeError', async () => {
    await assert.rejects(
      () => readAll(itemConnection(server.base, offset('/deep-keyless'))),
      stopped(/\(2 of the 2 of the last page, records without a key value\)/),
    );
  });
});
