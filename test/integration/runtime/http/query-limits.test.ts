/**
 * A System's `limits:` through HTTP on every engine: a free query of a hundred million rows (and one
 * of wide rows) answers the cap problem and the server goes on answering; a slow free query and a
 * slow object read answer the statement-timeout problem while other calls to the same system still
 * answer; one query too many answers busy with Retry-After; INTO is refused and writes nothing.
 *
 * The systems `limited` and `single` point at the test database with small limits; `crm` keeps the
 * defaults. Each slow statement is one the database would run for minutes; the tests only assert
 * that it answered with the problem, never how fast.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Engine } from '../../../support/databases.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type Answer, type HttpApp } from '../../../support/http-app.js';

/** Statements per engine: a hundred million narrow rows, 500 rows of 1000 characters, minutes of work, a view that takes as long. */
const statements: Record<Engine, { huge: string; wide: string; slow: string; slowView: string }> = {
  sqlite: {
    huge: 'WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000000) SELECT i AS id FROM r',
    wide: 'WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 500) SELECT i AS id, hex(zeroblob(500)) AS pad FROM r',
    slow: 'WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 10000000000) SELECT COUNT(*) AS id FROM r',
    slowView:
      'CREATE VIEW slow_rows AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 10000000000) SELECT i AS id FROM r WHERE i = 0',
  },
  postgres: {
    huge: 'SELECT generate_series(1, 100000000) AS id',
    wide: "SELECT g AS id, repeat('0', 1000) AS pad FROM generate_series(1, 500) g",
    slow: 'SELECT pg_sleep(600) IS NULL AS id',
    slowView:
      'CREATE VIEW slow_rows AS SELECT a AS id FROM generate_series(1, 1000000) a CROSS JOIN generate_series(1, 1000000) b WHERE a + b = 3',
  },
  mariadb: {
    huge: 'SELECT seq AS id FROM seq_1_to_100000000',
    wide: "SELECT seq AS id, REPEAT('0', 1000) AS pad FROM seq_1_to_500",
    slow: "SELECT BENCHMARK(10000000000, MD5('x')) AS id",
    slowView: 'CREATE VIEW slow_rows AS SELECT a.seq AS id FROM seq_1_to_1000000 a JOIN seq_1_to_1000000 b ON a.seq + b.seq = 3',
  },
};

function systemYaml(engine: Engine, id: string, limits: string, queries = ''): string {
  const connection =
    engine === 'sqlite'
      ? '{ client: sqlite3, filename: "${env:DATABASE_FILE}" }'
      : `{ client: ${engine === 'postgres' ? 'pg' : 'mysql2'}, url: "\${env:DATABASE_URL}" }`;
  return `kind: System
id: ${id}
connector: sql
connection: ${connection}
limits: ${limits}
objects:
  Customer: { table: customers, key: [id], fields: { id: { type: Integer }, name: { type: String } } }
  SlowRow: { table: slow_rows, key: [id], fields: { id: { type: Integer } } }
${queries}`;
}

/** Syncs reading named queries of the system \`paged\` (two rows a query, a kilobyte of them) into ERP accounts. */
function querySyncs(wide: string): { system: string; syncs: string } {
  const queries = `queries:
  customers:
    statement: SELECT id, name FROM customers ORDER BY id
    columns: [{ name: id, type: Integer }, { name: name, type: String }]
  wide:
    statement: "${wide}"
    columns: [{ name: id, type: Integer }, { name: pad, type: String }]
`;
  const sync = (id: string, query: string, prefix: string) => `kind: Sync
id: ${id}
source: { system: paged, query: ${query} }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "${prefix}-" & $string(id), "AccountName": "from a query" }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
`;
  return { system: queries, syncs: [sync('query-customers', 'customers', 'Q'), sync('query-wide', 'wide', 'W')].join('---\n') };
}

const id = [{ Name: 'id', ColumnType: 'Integer' }];

function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.type, 'application/problem+json');
  assert.equal(answer.json.type, `urn:syncline:problem:${code}`, answer.text);
  if (detail) assert.match(answer.json.detail, detail);
}

await describeEachDatabase('free-query limits', (database) => {
  describe('through HTTP', () => {
    let app: HttpApp;
    let engine: Engine;
    const query = (system: string, body: Record<string, unknown>) =>
      app.post(`/api/RunConnectionGetQueryData/${system}`, { columns: id, ...body });

    before(async () => {
      engine = database().engine;
      await database().admin.raw(statements[engine].slowView);
      app = await engineApp(database(), {
        files: {
          'limited.yaml': systemYaml(
            engine,
            'limited',
            '{ statementTimeout: 1s, queryRows: 1000, queryBytes: 64kb, concurrentQueries: 2, queryWait: 100ms }',
          ),
          'single.yaml': systemYaml(engine, 'single', '{ statementTimeout: 2s, concurrentQueries: 1, queryWait: 50ms }'),
          'paged.yaml': systemYaml(engine, 'paged', '{ queryRows: 2, queryBytes: 1kb }', querySyncs(statements[engine].wide).system),
          'query-syncs.yaml': querySyncs(statements[engine].wide).syncs,
        },
      });
    });
    after(() => app.close());

    it('answers a query of a hundred million rows with the row cap, then answers the next request', async () => {
      const answer = await query('limited', { Statement: statements[engine].huge });
      assertProblem(
        answer,
        422,
        'result-too-large',
        /more than 1000 rows, over limits\.queryRows \(1000\) of the System definition 'limited'/,
      );
      assert.match(answer.json.detail, /"Limit" and "Skip" in the body/);
      const next = await query('limited', { Statement: 'SELECT COUNT(*) AS id FROM customers' });
      assert.deepEqual([next.status, next.json.records], [200, [{ id: 6 }]]);
    });

    it('answers the same query on the default limits with the default cap', async () => {
      assertProblem(
        await query('crm', { Statement: statements[engine].huge }),
        422,
        'result-too-large',
        /more than 100000 rows, over limits\.queryRows \(100000\)/,
      );
      assert.equal((await app.get('/healthz')).status, 200);
    });

    it('answers wide rows over the byte cap with the byte cap, naming it', async () => {
      const answer = await query('limited', {
        Statement: statements[engine].wide,
        columns: [...id, { Name: 'pad', ColumnType: 'String' }],
      });
      assertProblem(
        answer,
        422,
        'result-too-large',
        /of rows, over limits\.queryBytes \(64 kB\) of the System definition 'limited'; .*raise limits\.queryBytes/,
      );
    });

    it('pages a large result with Limit and Skip, each page within the cap', async () => {
      const page = await query('limited', { Statement: statements[engine].huge, Limit: 3, Skip: 5 });
      assert.equal(page.status, 200, page.text);
      assert.deepEqual(page.json.records, [{ id: 6 }, { id: 7 }, { id: 8 }]);
      assertProblem(
        await query('limited', { Statement: 'SELECT 1 AS id', Limit: -1 }),
        400,
        'invalid-request',
        /Limit must be a whole number/,
      );
      assertProblem(
        await query('limited', { Statement: 'SELECT 1 AS id', Skip: 'two' }),
        400,
        'invalid-request',
        /Skip must be a whole number/,
      );
    });

    it('stops a slow free query at the statement timeout while other calls to the system still answer', async () => {
      const slow = query('limited', { Statement: statements[engine].slow });
      const [other, read] = await Promise.all([
        query('limited', { Statement: 'SELECT MAX(id) AS id FROM customers' }),
        app.post('/api/RunConnectionGetDataMin/limited/Customer', []),
      ]);
      assert.deepEqual([other.status, other.json.records], [200, [{ id: 6 }]], other.text);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json.length, 6);
      assertProblem(
        await slow,
        504,
        'statement-timeout',
        /system 'limited': stopped running a query at the statement timeout of 1s; .*raise limits\.statementTimeout in the System definition 'limited'/,
      );
      assert.equal((await query('limited', { Statement: 'SELECT 1 AS id' })).status, 200, 'the connection is usable again');
    });

    it('stops a slow read and count of an object at the statement timeout', async () => {
      assertProblem(
        await app.post('/api/RunConnectionGetDataMin/limited/SlowRow', []),
        504,
        'statement-timeout',
        /stopped reading SlowRow at the statement timeout of 1s/,
      );
      assertProblem(
        await app.post('/api/RunConnectionGetData/limited/SlowRow', []),
        504,
        'statement-timeout',
        /(reading|counting) SlowRow at the statement timeout of 1s/,
      );
      assert.equal((await app.post('/api/RunConnectionGetDataMin/limited/Customer', [])).status, 200);
    });

    it('answers one free query too many with 503 busy and Retry-After, while the first runs', async () => {
      const slow = query('single', { Statement: statements[engine].slow });
      let settled = false;
      void slow.finally(() => (settled = true));
      // Until the slow query holds the system's one turn, a quick one still gets it.
      let busy: Answer | undefined;
      while (!settled && busy === undefined) {
        const quick = await query('single', { Statement: 'SELECT 1 AS id' });
        if (quick.status === 503) busy = quick;
        else assert.equal(quick.status, 200, quick.text);
      }
      assert.ok(busy, 'a query found the turn taken while the slow one ran');
      assertProblem(
        busy,
        503,
        'busy',
        /1 free queries are running, its limits\.concurrentQueries, and none ended within limits\.queryWait \(50ms\).*raise limits\.concurrentQueries in the System definition 'single'/,
      );
      assert.match(busy.headers.get('retry-after') ?? '', /^[12]$/, 'at most the statement timeout (2s) away');
      assertProblem(await slow, 504, 'statement-timeout');
      assert.equal((await query('single', { Statement: 'SELECT 1 AS id' })).status, 200, 'the turn is free again');
    });

    it('a sync reads a named query in pages within queryRows, and stops with the byte cap named', async () => {
      const read = await app.post('/api/ExecuteProcess/query-customers', { StartType: 'manual' });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.json.Status, 'Complete', read.text);
      assert.deepEqual(
        read.json.Statistics,
        { Read: 6, Created: 6, Updated: 0, Skipped: 0, Failed: 0, Unchanged: 0 },
        'six rows in pages of two (queryRows), though batchSize is 500',
      );
      const wide = await app.post('/api/ExecuteProcess/query-wide', { StartType: 'manual' });
      assert.equal(wide.json.Status, 'Failed', wide.text);
      assert.match(wide.json.Errors[0].Message, /over limits\.queryBytes \(1 kB\) of the System definition 'paged'/);
      assert.equal(wide.json.Statistics.Read, 0);
    });

    it('refuses INTO in a free query and its count, whatever hides it, and writes nothing', async () => {
      const file = join(tmpdir(), `syncline-into-${process.pid}-${engine}.txt`);
      const refused = [
        'SELECT 1 AS id INTO syncline_into_table',
        'select 1 as id\n  into syncline_into_table',
        ...(engine === 'postgres'
          ? [
              "SELECT 1 AS id /* /* */ ' */ INTO syncline_into_table --'",
              'WITH x AS (SELECT 1 AS id) SELECT id INTO syncline_into_table FROM x',
            ]
          : []),
        ...(engine === 'mariadb'
          ? [
              `SELECT 1 INTO OUTFILE '${file}'`,
              `SELECT 1 INTO DUMPFILE '${file}'`,
              'SELECT 1 INTO @x',
              `SELECT 2--1 INTO OUTFILE '${file}'`,
              `SELECT 1 /*!INTO OUTFILE '${file}'*/`,
              'SELECT 1.INTO @x',
            ]
          : []),
      ];
      for (const statement of refused) {
        const answer = await query('crm', { Statement: statement });
        assertProblem(answer, 403, 'read-only', /uses INTO \(line \d+, column \d+\), which writes a file, a variable or a table/);
      }
      assertProblem(
        await query('crm', { Statement: 'SELECT COUNT(*) AS id FROM customers', CountStatement: 'SELECT COUNT(*) INTO @n FROM customers' }),
        403,
        'read-only',
        /count statement uses INTO/,
      );
      assert.equal(existsSync(file), false, 'no file was written');
      assert.equal(await database().admin.schema.hasTable('syncline_into_table'), false, 'no table was made');
    });

    it('runs INTO inside literals, quoted names and comments', async () => {
      const quote = engine === 'mariadb' ? '`' : '"';
      const answer = await app.post('/api/RunConnectionGetQueryData/crm', {
        columns: [{ Name: 'into', ColumnType: 'String' }],
        Statement: `SELECT 'select 1 into x' AS ${quote}into${quote} -- into\n/* INTO */`,
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.json.records, [{ into: 'select 1 into x' }]);
    });
  });
});
