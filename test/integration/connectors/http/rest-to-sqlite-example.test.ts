/**
 * The walkthrough of docs/connectors/http.md, replayed as written against examples/rest-to-sqlite:
 * the warehouse created from its .sql file, json-server's own command line serving (a copy of) the
 * example's db.json, the sync run through `syncline run` with the statistics the page shows and the
 * rows it describes, then `syncline serve` and the page's curl call answering what the page shows.
 * The example validates.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import knexFactory from 'knex';
import { projectRoot, runCli, startCli } from '../../../support/cli-process.js';
import { page, shellBlocks } from '../../../support/doc-examples.js';
import { freePort, startJsonServerCli } from '../../../support/json-server.js';

const text = page('docs/connectors/http.md');
const example = 'examples/rest-to-sqlite';
const dir = mkdtempSync(join(tmpdir(), 'syncline-rest-example-'));
const warehouse = join(dir, 'warehouse.sqlite');
let api: { base: string; port: number; stop(): Promise<void> } | undefined;
let unavailable: string | undefined;

before(async () => {
  copyFileSync(join(projectRoot, example, 'db.json'), join(dir, 'db.json'));
  try {
    api = await startJsonServerCli(join(dir, 'db.json'));
  } catch (error) {
    unavailable = (error as Error).message;
    if (process.env.CI === 'true') throw error;
    process.stderr.write(`skipping json-server tests: ${unavailable}\n`);
  }
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ SHOP_API_URL: `${api!.base}/`, WAREHOUSE_DB: warehouse });

test('the example validates', async () => {
  const validate = await runCli(['validate', example]);
  assert.equal(validate.code, 0, validate.stdout + validate.stderr);
});

test('the walkthrough: create the warehouse, serve the API, run the sync, read through Syncline', async (t) => {
  if (unavailable !== undefined) return t.skip(`json-server unavailable: ${unavailable}`);
  const [start] = shellBlocks(text, 'create-target.ts');
  assert.deepEqual(start!.trim().split('\n'), [
    'npx tsx examples/rest-to-sqlite/create-target.ts',
    'npx json-server --port 3100 examples/rest-to-sqlite/db.json',
  ]);
  assert.match(
    page(`${example}/systems.yaml`),
    /baseUrl: \$\{env:SHOP_API_URL:-http:\/\/localhost:3100\/\}/,
    'the System reaches that port by default',
  );

  const created = spawnSync(process.execPath, ['--import', 'tsx', join(example, 'create-target.ts')], {
    cwd: projectRoot,
    env: { ...process.env, ...env() },
    encoding: 'utf8',
  });
  assert.equal(created.status, 0, created.stderr);

  const [run] = shellBlocks(text, 'syncline run');
  assert.equal(run!.trim(), `npx syncline run shop-contacts-to-warehouse --definitions ${example}`);
  const ran = await runCli(
    ['run', 'shop-contacts-to-warehouse', '--definitions', example, '--db', `sqlite:${join(dir, 'runtime.sqlite')}`],
    {
      env: env(),
    },
  );
  assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  const shown = /```text\nshop-contacts-to-warehouse: Complete[^\n]*\n\n([\s\S]*?)```/.exec(text);
  assert.ok(shown, 'the page shows the statistics of the run');
  for (const line of shown[1]!.trim().split('\n'))
    assert.ok(ran.stdout.includes(line.trim()), `the run printed '${line.trim()}':\n${ran.stdout}`);

  const knex = knexFactory({ client: 'sqlite3', connection: { filename: warehouse }, useNullAsDefault: true });
  try {
    const rows = await knex('customers').orderBy('contact_id').select('contact_id', 'name', 'email', 'city');
    assert.deepEqual(
      rows.map((row: { contact_id: number; name: string }) => [row.contact_id, row.name]),
      [
        [1, 'Ada Lovelace'],
        [2, 'Grace Hopper'],
        [4, 'Katherine Johnson'],
        [5, 'Edsger Dijkstra'],
        [6, 'Barbara Liskov'],
        [7, 'Margaret Hamilton'],
      ],
    );
    assert.equal(rows[0].email, 'ada@example.com', 'the mapping lower-cased the email');
    assert.equal(rows[0].city, 'London');
  } finally {
    await knex.destroy();
  }

  const [served] = shellBlocks(text, 'syncline serve');
  const call =
    /^npx syncline serve --definitions (\S+) --port (\d+) --no-daemon\ncurl -s -X POST http:\/\/127\.0\.0\.1:\d+(\/api\/\S+) \\\n\s+-H 'Authorization: Bearer ([^']+)' -H 'Content-Type: application\/json' \\\n\s+-d '((?:[^']|'\\'')*)'\n$/.exec(
      served!,
    );
  assert.ok(call, `the page serves the example and reads it with curl:\n${served}`);
  const [, definitions, , path, token, shellBody] = call;
  assert.equal(definitions, example);
  const port = await freePort();
  const server = startCli(
    ['serve', '--definitions', example, '--port', String(port), '--no-daemon', '--db', `sqlite:${join(dir, 'runtime.sqlite')}`],
    {
      env: env(),
    },
  );
  try {
    await server.waitForLog((entry) => /^serving on /.test(entry.msg));
    const response = await fetch(`http://127.0.0.1:${port}${path!}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token!}`, 'content-type': 'application/json' },
      body: shellBody!.replaceAll(`'\\''`, `'`),
    });
    const answer = await response.text();
    assert.equal(response.status, 200, answer);
    const shownAnswer = /```json\n(\[\{"id"[\s\S]*?)\n```/.exec(text);
    assert.ok(shownAnswer, 'the page shows the answer');
    assert.deepEqual(JSON.parse(answer), JSON.parse(shownAnswer[1]!));
  } finally {
    await server.stop();
  }
});
