/**
 * One free query must never kill the process: a real `syncline serve` (API and in-process daemon)
 * on each engine is sent the hundred-million-row queries of the acceptance findings with the
 * default limits, answers the row-cap problem, and then still answers /healthz and the next query.
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

await describeEachDatabase('a hundred-million-row free query against syncline serve', (database) => {
  describe('a real process', () => {
    let dir: string;
    let served: CliProcess;
    let base: string;
    const post = (body: unknown) =>
      fetch(`${base}/api/RunConnectionGetQueryData/big`, {
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
      await writeFile(join(dir, 'systems.yaml'), `kind: System\nid: big\nconnector: sql\nconnection: ${target}\n`);
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
  });
});
