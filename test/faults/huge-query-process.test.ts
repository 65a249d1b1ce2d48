/**
 * One free query must never kill the process: a real `syncline serve` (API and in-process daemon)
 * on each engine is sent the hundred-million-row queries of the acceptance findings with the
 * default limits, answers the row-cap problem, and then still answers /healthz and the next query.
 * So with values too long to read: a value over a System's limits.queryBytes is stopped on its way
 * in, and on PostgreSQL a value of 600 MB (longer than a JavaScript string can be), which pg's
 * parser used to throw on inside the socket's data handler, ending the process.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { describeEachDatabase, type Engine } from '../support/databases.js';

const adminToken = `huge-query-admin-${process.pid}-0123456789abcdef`;

/** As the findings sent them, except PostgreSQL's: generate_series in the select list streams, where FROM would first spill 100M rows to disk. */
const hugeQuery: Record<Engine, string> = {
  sqlite: 'WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000000) SELECT i AS id FROM r',
  postgres: 'SELECT generate_series(1, 100000000) AS id',
  mariadb: 'SELECT seq AS id FROM seq_1_to_100000000',
};

/** A value of 5 MB: over a limits.queryBytes of 1 MiB, within MariaDB's default max_allowed_packet. */
const longValue: Record<Engine, string> = {
  sqlite: 'SELECT hex(zeroblob(2500000)) AS id',
  postgres: "SELECT repeat('x', 5000000) AS id",
  mariadb: "SELECT repeat('x', 5000000) AS id",
};

await describeEachDatabase('a hundred-million-row free query against syncline serve', (database) => {
  describe('a real process', () => {
    let dir: string;
    let served: CliProcess;
    let base: string;
    const post = (body: unknown, system = 'big') =>
      fetch(`${base}/api/RunConnectionGetQueryData/${system}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    before(async () => {
      const { engine, connection, baseDirectory } = database();
      dir = await mkdtemp(join(tmpdir(), 'syncline-huge-query-'));
      const target =
        engine === 'sqlite'
          ? `{ client: sqlite3, filename: ${JSON.stringify(join(baseDirectory, String(connection.filename)))} }`
          : `{ client: ${engine === 'postgres' ? 'pg' : 'mysql2'}, url: ${JSON.stringify(String(connection.url))} }`;
      const system = (id: string, extra = '') => `kind: System\nid: ${id}\nconnector: sql\nconnection: ${target}\n${extra}`;
      await writeFile(
        join(dir, 'systems.yaml'),
        [
          system('big'),
          system('small', 'limits: { queryBytes: 1mib }\n'),
          system(
            'wide',
            'objects:\n  Document:\n    table: wide_documents\n    key: [id]\n    fields: { id: { type: Integer }, body: { type: String } }\n',
          ),
        ].join('---\n'),
      );
      served = startCli(['serve', '--definitions', dir, '--port', '0', '--db', `sqlite:${join(dir, 'runtime.sqlite')}`], {
        env: { SYNCLINE_ADMIN_TOKEN: adminToken },
      });
      const listening = await served.waitForLog((entry) => entry.msg.startsWith('serving on '));
      base = listening.msg.slice('serving on '.length);
    });
    after(async () => {
      await served?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('answers the row cap, and the process goes on answering', async () => {
      const answer = await post({ columns: [{ Name: 'id', ColumnType: 'Integer' }], Statement: hugeQuery[database().engine] });
      const problem = (await answer.json()) as { type: string; detail: string };
      assert.equal(answer.status, 422, JSON.stringify(problem));
      assert.equal(problem.type, 'urn:syncline:problem:result-too-large');
      assert.match(problem.detail, /over limits\.queryRows \(100000\) of the System definition 'big'/);
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      const next = await post({ columns: [{ Name: 'id', ColumnType: 'Integer' }], Statement: 'SELECT 7 AS id' });
      assert.deepEqual(((await next.json()) as { records: unknown }).records, [{ id: 7 }]);
      assert.equal(served.child.exitCode, null, `the process is still running; stderr: ${served.stderr()}`);
    });

    it('stops a value over limits.queryBytes on its way in, and the process goes on answering', async () => {
      const answer = await post({ columns: [{ Name: 'id', ColumnType: 'String' }], Statement: longValue[database().engine] }, 'small');
      const problem = (await answer.json()) as { type: string; detail: string };
      assert.equal(answer.status, 422, JSON.stringify(problem));
      assert.equal(problem.type, 'urn:syncline:problem:result-too-large');
      assert.match(
        problem.detail,
        /^system 'small': stopped running a query at a (row|value) of more than 1 MiB, over limits\.queryBytes \(1 MiB\) of the System definition 'small'; leave the large column out/,
      );
      // No page is small enough for one value: the paging advice is left out.
      assert.doesNotMatch(problem.detail, /Skip/);
      const next = await post({ columns: [{ Name: 'id', ColumnType: 'Integer' }], Statement: 'SELECT 8 AS id' }, 'small');
      assert.deepEqual(((await next.json()) as { records: unknown }).records, [{ id: 8 }]);
    });

    it('on PostgreSQL, a value longer than a string can be is refused instead of ending the process', { timeout: 120_000 }, async (t) => {
      const { engine, admin } = database();
      if (engine !== 'postgres') return t.skip('pg only: SQLite and MariaDB bound values inside the database');
      const answer = await post({ columns: [{ Name: 'id', ColumnType: 'String' }], Statement: "SELECT repeat('x', 600000000) AS id" });
      const problem = (await answer.json()) as { type: string; detail: string };
      assert.equal(answer.status, 422, JSON.stringify(problem));
      assert.match(problem.detail, /stopped running a query at a row of more than 32 MiB, over limits\.queryBytes/);
      // The same through an object's reads, which a sync makes too: any row over 256 MiB.
      await admin.raw("CREATE VIEW wide_documents AS SELECT 1 AS id, repeat('x', 300000000) AS body");
      const read = await fetch(`${base}/api/RunConnectionGetData/wide/Document`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: '[]',
      });
      const readProblem = (await read.json()) as { type: string; detail: string };
      assert.equal(read.status, 422, JSON.stringify(readProblem));
      assert.match(
        readProblem.detail,
        /^system 'wide': stopped reading Document at a row of more than 256 MiB, the most Syncline reads in one row/,
      );
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      assert.equal(served.child.exitCode, null, `the process is still running; stderr: ${served.stderr()}`);
    });
  });
});
