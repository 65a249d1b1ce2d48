/**
 * The four read actions through runWebhookAction on real databases: readWithSync,
 * readQueryWithSync, readWithSystem and readQueryWithSystem — search and order, firstOnly, the
 * response schema's shape, the sync's where, precondition and mapping, query filters, paging with
 * default and named parameters, and injection payloads in every placeholder.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';
import { ids, useActionWorld } from './actions-fixture.js';

/** Payloads that would change a statement if a value were ever spliced into SQL or OData. */
export const injections = [
  "x' OR '1'='1",
  "x'; DROP TABLE customers; --",
  '1 OR 1=1',
  "') OR ('a'='a",
  "x\\' OR 1=1 #",
  "x' or substringof('a',name) eq true or 'a' eq 'a",
  '#FlowFilter#',
  '%',
];

await describeEachRuntimeDatabase('webhook read actions', (runtime, database) => {
  const world = useActionWorld(runtime, database);
  const admin = () => database().admin;

  test('readWithSync: search with placeholders AND the sync where, webhook order, the sync mapping with $params', async () => {
    const { answer, ticker } = await world().call(ids.readSync, { city: 'Faro', minScore: 5, tag: 'T' });
    assert.equal(answer.status, 200);
    // Cy lives in Faro but is inactive: the sync's where keeps it out. Score order, descending.
    assert.deepEqual(answer.body, [
      { number: 'C-1', name: 'Ada', city: 'Lisbon', tag: 'T' },
      { number: 'C-5', name: 'Ed', city: 'Evora', tag: 'T' },
      { number: 'C-2', name: 'Bob', city: 'Porto', tag: 'T' },
    ]);
    const filter = ticker.messages.find((m) => m.kind === 'filter');
    assert.match(filter?.message ?? '', /active = true AND \(city = #city# OR score >= #minScore#\)/);
    assert.equal(JSON.stringify(ticker.messages).includes('Faro'), false, 'placeholder values stay out of the ticker');
    assert.deepEqual(ticker.messages.find((m) => m.kind === 'hits')?.data, { count: 3, read: 3 });
  });

  test('readWithSync: firstOnly answers the first object by order; 204 when none', async () => {
    const { answer } = await world().call(ids.readSyncFirst, {});
    assert.deepEqual(answer, { status: 200, body: { number: 'C-1', name: 'Ada', city: 'Lisbon' } });
    await admin()('customers').update({ active: false });
    assert.deepEqual((await world().call(ids.readSyncFirst, {})).answer, { status: 204 });
  });

  test("readWithSync: no record found answers 204, as the seed's status table says", async () => {
    const { answer } = await world().call(ids.readSync, { city: 'Nowhere', minScore: 100 });
    assert.deepEqual(answer, { status: 204 });
  });

  test('readQueryWithSync: #FlowFilter# from the queryFilter, precondition, mapping, order in memory', async () => {
    const { answer, ticker } = await world().call(ids.readQuerySync, { exclude: 'Bob' });
    assert.equal(answer.status, 200);
    // Active customers except Bob; Di (score 1) fails the precondition score > 1.
    assert.deepEqual(answer.body, [
      { number: 'Q-1', name: 'Ada', score: 10 },
      { number: 'Q-5', name: 'Ed', score: 8 },
    ]);
    assert.match(ticker.messages.find((m) => m.kind === 'hits')?.message ?? '', /1 left out by the precondition/);
  });

  test('readQueryWithSync: firstOnly', async () => {
    assert.deepEqual((await world().call(ids.readQuerySyncFirst, { name: 'Ed' })).answer, {
      status: 200,
      body: { number: 'Q-5', name: 'Ed', score: 8 },
    });
    assert.deepEqual((await world().call(ids.readQuerySyncFirst, { name: 'Cy' })).answer, { status: 204 });
  });

  test('readWithSystem: search, order, read mapping, array per the response schema', async () => {
    const { answer, ticker } = await world().call(ids.readSystem, { email: 'bob@example.com' });
    assert.deepEqual(answer, { status: 200, body: [{ id: 2, name: 'Bob' }] });
    assert.deepEqual(
      ticker.messages.map((m) => m.kind),
      ['start', 'filter', 'hits'],
    );
    assert.deepEqual((await world().call(ids.readSystem, { email: 'nobody@example.com' })).answer, { status: 204 });
  });

  test('readWithSystem: firstOnly with order; a response schema of type object answers one record as it is', async () => {
    assert.deepEqual((await world().call(ids.readSystemFirst, {})).answer.body, {
      id: 1,
      name: 'Ada',
      email: 'ada@example.com',
      active: true,
      score: 10,
      city: 'Lisbon',
    });
    assert.deepEqual((await world().call(ids.readSystemObject, { id: 4 })).answer.body, {
      id: 4,
      name: 'Di',
      email: 'di@example.com',
      active: true,
      score: 1,
      city: 'Braga',
    });
    assert.deepEqual((await world().call(ids.readSystemObject, { id: 99 })).answer, { status: 204 });
    // A query-string value (GET) is text; the connector converts it to the field's type.
    assert.equal(((await world().call(ids.readSystemObject, { id: '3' }, { method: 'GET' })).answer.body as { name: string }).name, 'Cy');
  });

  test('readQueryWithSystem: queryFilter and read mapping, no paging → array', async () => {
    const { answer } = await world().call(ids.readQuerySystem, { minScore: 5 });
    assert.deepEqual(answer, { status: 200, body: [{ who: 'Ada' }, { who: 'Bob' }, { who: 'Ed' }] });
  });

  test('readQueryWithSystem paging: defaults pageSize/offset, {data, total} with total from a count over the statement', async () => {
    const all = await world().call(ids.readQuerySystemPaged, { minScore: 0 });
    assert.deepEqual(all.answer.body, {
      data: [1, 2, 4, 5].map((id) => ({
        id,
        name: ['Ada', 'Bob', 'Di', 'Ed'][[1, 2, 4, 5].indexOf(id)],
        email: `${['ada', 'bob', 'di', 'ed'][[1, 2, 4, 5].indexOf(id)]}@example.com`,
        score: [10, 5, 1, 8][[1, 2, 4, 5].indexOf(id)],
      })),
      total: 4,
    });
    const page = await world().call(ids.readQuerySystemPaged, { minScore: 2, pageSize: 1, offset: 1 });
    assert.deepEqual(page.answer.body, { data: [{ id: 2, name: 'Bob', email: 'bob@example.com', score: 5 }], total: 3 });
    // Paging values from the query string of a POST, as digits.
    const fromQuery = await world().call(ids.readQuerySystemPaged, { minScore: 2 }, { query: { pageSize: '2', offset: '2' } });
    assert.deepEqual(fromQuery.answer.body, { data: [{ id: 5, name: 'Ed', email: 'ed@example.com', score: 8 }], total: 3 });
  });

  test('readQueryWithSystem paging: named parameters, default page size and the cap', async () => {
    const first = await world().call(ids.readQuerySystemNamed, {});
    assert.deepEqual(
      (first.answer.body as { data: Array<{ id: number }> }).data.map((r) => r.id),
      [1, 2],
    );
    assert.equal((first.answer.body as { total: number }).total, 4);
    const next = await world().call(ids.readQuerySystemNamed, { size: 3, start: 3 });
    assert.deepEqual(
      (next.answer.body as { data: Array<{ id: number }> }).data.map((r) => r.id),
      [5],
    );
    for (const [data, path, pattern] of [
      [{ size: 4 }, '/size', /at most 3/],
      [{ size: 0 }, '/size', /at least 1/],
      [{ size: 'ten' }, '/size', /whole number/],
      [{ start: -1 }, '/start', /at least 0/],
      [{ start: 1.5 }, '/start', /whole number/],
    ] as const) {
      const { error } = await world().refused(ids.readQuerySystemNamed, data);
      assert.equal(error.status, 400, JSON.stringify(data));
      assert.deepEqual((error.extra?.errors?.[0] as { path: string } | undefined)?.path, path);
      assert.match(error.message, pattern);
    }
    const { error } = await world().refused(ids.readQuerySystemNamed, {}, { query: { size: ['1', '2'] } });
    assert.equal((error.extra?.errors?.[0] as { path: string } | undefined)?.path, 'query.size');
  });

  test('readQueryWithSystem paging: the filterParam filter narrows the queryFilter, which always applies', async () => {
    const idsOf = async (data: Record<string, unknown>) =>
      ((await world().call(ids.readQuerySystemOptional, data)).answer.body as { data: Array<{ id: number }> }).data.map((row) => row.id);
    // score >= 2: Ada, Bob, Ed (Di has 1; Cy is inactive).
    assert.deepEqual(await idsOf({ minScore: 2 }), [1, 2, 5]);
    assert.deepEqual(await idsOf({ minScore: 2, where: '' }), [1, 2, 5]);
    assert.deepEqual(await idsOf({ minScore: 2, where: "name <> 'Bob' AND score < 10" }), [5]);
    assert.deepEqual(await idsOf({ minScore: 2, where: 'score < 2 OR 1 = 1' }), [1, 2, 5], 'an OR stays inside its own parentheses');
    // Without minScore the configured filter compares with null and matches nothing; omitting the request's own never widens.
    assert.deepEqual(await idsOf({}), []);
    const { answer, ticker } = await world().call(ids.readQuerySystemOptional, { minScore: 0, where: "email = 'di@example.com'" });
    assert.deepEqual(answer.body, { data: [{ id: 4, name: 'Di', email: 'di@example.com', score: 1 }], total: 1 });
    const filters = ticker.messages.filter((m) => m.kind === 'filter');
    assert.deepEqual(
      filters.map((m) => m.message),
      ['queryFilter: score >= #minScore#', "where: the request's filter on email, AND-ed"],
    );
    assert.equal(JSON.stringify(ticker.messages).includes('di@example.com'), false, "the filter's values stay out of the ticker");
    // city is a column of the table, but not one the query declares.
    const { error } = await world().refused(ids.readQuerySystemOptional, { minScore: 0, where: "city = 'Faro'" });
    assert.equal(error.status, 400);
    assert.match(error.message, /where, column 1: query src\/activeCustomers has no column 'city'; it may name id, name, email, score/);
    assert.deepEqual(error.extra?.errors, [{ path: '/where', message: error.message }]);
  });

  test('injection payloads in search, query filter and paging placeholders find nothing and change nothing', async () => {
    const before = await admin()('customers').count({ n: '*' });
    for (const payload of injections) {
      assert.deepEqual((await world().call(ids.readSystem, { email: payload })).answer, { status: 204 }, payload);
      assert.deepEqual((await world().call(ids.readSync, { city: payload, minScore: 1000 })).answer, { status: 204 }, payload);
      assert.deepEqual(
        (await world().call(ids.readQuerySystemOptional, { minScore: 0, where: `name = '${payload.replaceAll("'", "''")}'` })).answer.body,
        { data: [], total: 0 },
        payload,
      );
      assert.deepEqual((await world().call(ids.readQuerySyncFirst, { name: payload })).answer, { status: 204 }, payload);
      // Text where a number is wanted: refused as a value, never as SQL.
      const refused = await world()
        .refused(ids.readSystemObject, { id: payload })
        .catch(() => undefined);
      if (refused) {
        assert.equal(refused.error.status, 400, payload);
        assert.doesNotMatch(refused.error.message, /syntax|SQL|SELECT|sqlite|postgres|maria/i, payload);
      }
    }
    assert.deepEqual(await admin()('customers').count({ n: '*' }), before);
  });
});
