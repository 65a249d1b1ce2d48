/**
 * The paging filter property of readQueryWithSystem through the real endpoint on every engine:
 * the configured queryFilter always applies, the request's filter (an expression over the query's
 * declared columns) only narrows it — omitted, empty, `1=1`, an OR, or SQL text never widen the
 * answer — and what cannot be parsed, names another column or is a value where a condition belongs
 * is a 400 naming the property.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDatabase, type Engine } from '../../../support/databases.js';
import { engineApp, engineConnection, type Answer, type HttpApp } from '../../../support/http-app.js';

const hookId = 'e2e-paged-filter-00001';

/**
 * Active customers with their main city, on the engine's database: the quickstart's own query says
 * `active = 1`, which PostgreSQL's boolean column refuses.
 */
function definitions(engine: Engine): Record<string, string> {
  return {
    'paged-filter.yaml': `kind: System
id: crm-pages
connector: sql
connection: ${JSON.stringify(engineConnection(engine))}
queries:
  customersByCity:
    statement: >-
      SELECT c.id, c.name, c.email, a.city
      FROM customers c LEFT JOIN customer_addresses a ON a.customer_id = c.id AND a.type = 'main'
      WHERE c.active = TRUE AND #FlowFilter# ORDER BY c.id
    columns:
      - { name: id, type: Integer }
      - { name: name, type: String }
      - { name: email, type: String }
      - { name: city, type: String }
---
kind: Webhook
id: ${hookId}
action: readQueryWithSystem
system: crm-pages
query: customersByCity
queryFilter: "city IS NOT NULL"
paging: { filterParam: filter, defaultPageSize: 10 }
`,
  };
}

/** Active customers with a main address (the configured filter): Edsger (5) has none, Alan (3) is inactive. */
const configured = [1, 2, 4, 6];

await describeEachDatabase('paging filter property over HTTP', (database) => {
  describe('on a query of the quickstart tables', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), { files: definitions(database().engine) });
    });
    after(() => app?.close());

    const post = (body: unknown) => app.call('POST', `/api/webhooks/${hookId}`, { token: null, body });
    const get = (query: string) => app.call('GET', `/api/webhooks/${hookId}?${query}`, { token: null });
    const ids = (answer: Answer): number[] => {
      assert.equal(answer.status, 200, answer.text);
      const body = answer.json as { data: Array<{ id: number }>; total: number };
      assert.equal(body.total, body.data.length, 'one page holds them all: total counts the same rows');
      return body.data.map((row) => row.id);
    };

    it('narrows the configured filter by the columns the query declares, in the body or the query string', async () => {
      assert.deepEqual(ids(await post({ filter: "name = 'Ada Lovelace'" })), [1]);
      assert.deepEqual(ids(await post({ filter: "startswith(name, 'K') OR id = 6" })), [4, 6]);
      assert.deepEqual(ids(await post({ filter: "city IN ('London', 'Cambridge') AND email LIKE '%@example.com'" })), [6]);
      assert.deepEqual(ids(await get(`filter=${encodeURIComponent('id >= 4')}`)), [4, 6]);
      const page = await post({ filter: 'id > 1', pageSize: 1, offset: 1 });
      assert.deepEqual(page.json, {
        data: [{ id: 4, name: 'Katherine Johnson', email: 'katherine@example.com', city: 'Hampton' }],
        total: 3,
      });
    });

    it('never widens: omitted, null, empty, 1=1, an OR around the configured filter, SQL in a value', async () => {
      for (const body of [
        {},
        { filter: null },
        { filter: '' },
        { filter: '   ' },
        { filter: '1=1' },
        { filter: 'id = 5 OR 1 = 1' },
        { filter: 'city IS NULL OR id > 0' },
      ]) {
        assert.deepEqual(ids(await post(body)), configured, JSON.stringify(body));
      }
      // Edsger (no city) is what the configured filter leaves out; asking for him finds nobody.
      assert.deepEqual(ids(await post({ filter: 'city IS NULL' })), []);
      assert.deepEqual(ids(await post({ filter: 'id = 5' })), []);
      assert.deepEqual(ids(await get('filter=')), configured);
      // Text that would change a statement if it were spliced is only ever a value.
      for (const value of ["' OR 1=1 --", "x' OR '1'='1", "'; DROP TABLE customers; --", '%']) {
        assert.deepEqual(ids(await post({ filter: `name = ${quote(value)}` })), [], value);
        assert.deepEqual(ids(await post({ filter: `name LIKE ${quote(value)}` })), value === '%' ? configured : [], value);
      }
      assert.equal(Number((await app.crm('customers').count({ n: '*' }))[0]!.n), 6);
    });

    it('answers 400 naming the property for a filter that does not parse, names another column, or is no text', async () => {
      const refusals: Array<[unknown, RegExp]> = [
        ["' OR 1=1 --", /filter, column 1: unterminated string/],
        ['1=1) OR (1=1', /filter, column 4: unexpected '\)'/],
        ['name = ', /filter, column 8:/],
        ['active = false', /filter, column 1: query crm-pages\/customersByCity has no column 'active'; it may name id, name, email, city/],
        ['c.active = 0', /has no column 'c\.active'/],
        ['updated_at IS NOT NULL', /has no column 'updated_at'/],
        ['name = #filter#', /filter, column 8: #filter# is a placeholder; write the value itself/],
        // A value for a condition would narrow nothing: every row the configured filter allows.
        ['4', /filter, column 1: 4 is a value, not a condition: .*\(e\.g\. id = 4\)/],
        ["'x'", /filter, column 1: 'x' is a value, not a condition/],
        ['city', /filter, column 1: city is a String field, not a condition/],
        [5, /filter must be text holding a filter .*, not a number/],
        [{ name: 'Ada' }, /not an object/],
        [['id = 1'], /not a list/],
      ];
      for (const [value, detail] of refusals) {
        const answer = await post({ filter: value });
        assert.equal(answer.status, 400, `${JSON.stringify(value)}: ${answer.text}`);
        assert.equal(answer.type, 'application/problem+json');
        assert.match(answer.json.detail, detail, JSON.stringify(value));
        assert.deepEqual(
          answer.json.errors.map((error: { path: string }) => error.path),
          ['/filter'],
          JSON.stringify(value),
        );
      }
      // A GET's query string is its data; a POST's query string is read after its body.
      const fromGet = await get(`filter=${encodeURIComponent('nickname = 1')}`);
      assert.equal(fromGet.status, 400, fromGet.text);
      assert.deepEqual(
        fromGet.json.errors.map((error: { path: string }) => error.path),
        ['/filter'],
      );
      const fromPostQuery = await app.call('POST', `/api/webhooks/${hookId}?filter=${encodeURIComponent('id =')}`, {
        token: null,
        body: {},
      });
      assert.equal(fromPostQuery.status, 400, fromPostQuery.text);
      assert.deepEqual(
        fromPostQuery.json.errors.map((error: { path: string }) => error.path),
        ['query.filter'],
      );
    });
  });
});

/** A string literal of the expression language: single quotes, doubled inside. */
function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
