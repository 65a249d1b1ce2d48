/**
 * A SQLite `filename` in a System definition is relative to the definitions directory, as
 * `${file:…}` is, not to the directory the process was started in: the quickstart's
 * `data/crm.sqlite` is found by `syncline serve` and `syncline run` started anywhere.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSqliteFromScript } from '../../../../examples/quickstart/sql-script.js';
import { projectRoot, runCli, startCli, type CliProcess } from '../../../support/cli-process.js';

const quickstart = join(projectRoot, 'examples', 'quickstart');
const token = 'sqlite-paths-operator-token-0123456789';

describe('SQLite files are found from the definitions directory, whatever the working directory', () => {
  let dir: string;
  let definitions: string;
  let elsewhere: string;
  const processes: CliProcess[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'syncline-sqlite-paths-'));
    // The quickstart as it is, its systems pointing at data/crm.sqlite and data/erp.sqlite.
    definitions = join(dir, 'definitions');
    await cp(quickstart, definitions, { recursive: true, filter: (path) => !path.endsWith('.sqlite') && !path.endsWith('.ts') });
    await createSqliteFromScript(join(definitions, 'data', 'crm.sqlite'), join(quickstart, 'data', 'crm.sql'));
    await createSqliteFromScript(join(definitions, 'data', 'erp.sqlite'), join(quickstart, 'data', 'erp.sql'));
    // The working directory has a data/ folder of its own without those files, so a path taken
    // from it would be missing.
    elsewhere = join(dir, 'elsewhere');
    await mkdir(join(elsewhere, 'data'), { recursive: true });
  });

  after(async () => {
    await Promise.all(processes.map((process) => process.stop('SIGKILL')));
    await rm(dir, { recursive: true, force: true });
  });

  it('serve started in another directory reads the quickstart CRM', async () => {
    const server = startCli(
      ['serve', '--definitions', definitions, '--port', '0', '--db', `sqlite:${join(dir, 'serve.db')}`, '--no-daemon'],
      { cwd: elsewhere, env: { QUICKSTART_API_TOKEN: token } },
    );
    processes.push(server);
    const base = (await server.waitForLog((entry) => /^serving on /.test(entry.msg))).msg.replace('serving on ', '');
    const response = await fetch(`${base}/api/RunConnectionGetDataMin/crm/Customer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ name: 'GETDATA_WHERE', value: "addresses.main.city = 'London'" }]),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.deepEqual(
      (JSON.parse(text) as Array<{ name: string }>).map((record) => record.name),
      ['Ada Lovelace'],
    );
    assert.equal((await server.stop('SIGTERM')).code, 0);
  });

  it('run started in another directory syncs the quickstart CRM into its ERP', async () => {
    const run = await runCli(['run', 'crm-customers-to-erp', '--definitions', definitions, '--db', `sqlite:${join(dir, 'run.db')}`], {
      cwd: elsewhere,
      env: { QUICKSTART_API_TOKEN: token },
    });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /Read\s+5/);
    assert.match(run.stdout, /Failed\s+0/);
  });
});
