/**
 * `syncline run` as an operator uses it: the quickstart sync run in a child process against
 * fresh copies of the demo databases, with its statistics table, exit codes and the queue item
 * it leaves behind.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import knexFactory from 'knex';
import { createSqliteFromScript } from '../../../../examples/quickstart/sql-script.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot, runCli, startCli } from '../../../support/cli-process.js';

const quickstart = join(projectRoot, 'examples', 'quickstart');

describe('syncline run', () => {
  let dir: string;
  let env: Record<string, string>;

  const run = (args: string[], extraEnv: Record<string, string> = {}) => runCli(['run', ...args], { env: { ...env, ...extraEnv } });

  /** The statistics table as numbers. */
  function statistics(stdout: string): Record<string, number> {
    const rows = [...stdout.matchAll(/^ {2}(Read|Created|Updated|Skipped|Failed) +([\d,]+)$/gm)];
    return Object.fromEntries(rows.map((row) => [row[1]!, Number(row[2]!.replaceAll(',', ''))]));
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'syncline-run-'));
    await createSqliteFromScript(join(dir, 'crm.sqlite'), join(quickstart, 'data', 'crm.sql'));
    await createSqliteFromScript(join(dir, 'erp.sqlite'), join(quickstart, 'data', 'erp.sql'));
    env = {
      CRM_DB: join(dir, 'crm.sqlite'),
      ERP_DB: join(dir, 'erp.sqlite'),
      SYNCLINE_DB: `sqlite:${join(dir, 'runtime.db')}`,
      SYNCLINE_DEFINITIONS: quickstart,
    };
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the quickstart sync, prints its statistics and leaves a Complete manual item', async () => {
    const first = await run(['crm-customers-to-erp']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^crm-customers-to-erp: Complete in \d+/);
    assert.deepEqual(statistics(first.stdout), { Read: 5, Created: 3, Updated: 1, Skipped: 1, Failed: 0 });
    assert.match(first.stderr, /running crm-customers-to-erp \(item [0-9a-f-]{36}\), 5 source records/);

    const second = await run(['crm-customers-to-erp']);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(
      statistics(second.stdout),
      { Read: 5, Created: 0, Updated: 4, Skipped: 1, Failed: 0 },
      'the second run updates what the first created',
    );

    const runtime = knexFactory({ client: 'sqlite3', connection: { filename: join(dir, 'runtime.db') }, useNullAsDefault: true });
    try {
      const items = (await runtime('queue_items').select('start_type', 'status', 'process_id')) as Array<Record<string, string>>;
      assert.deepEqual(items, [
        { start_type: 'manual', status: 'Complete', process_id: 'crm-customers-to-erp' },
        { start_type: 'manual', status: 'Complete', process_id: 'crm-customers-to-erp' },
      ]);
    } finally {
      await runtime.destroy();
    }
  });

  it('takes a WhereClause and parameters', async () => {
    const ran = await run(['crm-customers-to-erp', '--where', "name LIKE 'A%'", '--param', 'source=cli']);
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(statistics(ran.stdout).Read, 1);
    // The bar counts what the run reads: the sync's where AND the WhereClause.
    assert.match(ran.stderr, /running crm-customers-to-erp \(item [0-9a-f-]{36}\), 1 source record\n/);
  });

  it('refuses a WhereClause that does not parse, an unknown sync and a bad parameter with exit 2', async () => {
    const where = await run(['crm-customers-to-erp', '--where', 'name =']);
    assert.equal(where.code, 2);
    assert.match(where.stderr, /^error: --where: WhereClause, column \d+: /m);
    const unknown = await run(['crm-customers-to-erpp']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no sync or flow 'crm-customers-to-erpp'.*known: crm-customers-to-erp/);
    const param = await run(['crm-customers-to-erp', '--param', 'novalue']);
    assert.equal(param.code, 2);
    assert.match(param.stderr, /--param must be Name=Value, not 'novalue'/);
  });

  it('waits in line while the sync already runs elsewhere, runs after it; Ctrl-C while waiting ends the item Failed', async () => {
    const runtime = knexFactory({ client: 'sqlite3', connection: { filename: join(dir, 'runtime.db') }, useNullAsDefault: true });
    /** An item of the sync another worker holds, as a daemon running it would. */
    const holdElsewhere = async (id: string) => {
      const now = new Date().toISOString();
      await runtime('queue_items').insert({
        id,
        process_id: 'crm-customers-to-erp',
        start_type: 'repeat',
        status: 'InProgress',
        attempts: 1,
        max_attempts: 1,
        run_after: now,
        created_at: now,
        started_at: now,
        locked_by: 'a-daemon-elsewhere',
        lease_until: new Date(Date.now() + 600_000).toISOString(),
        errors: '[]',
        concurrency_key: 'process:crm-customers-to-erp',
        concurrency_limit: 1,
      });
    };
    const untilWaiting = async (child: ReturnType<typeof startCli>) => {
      for (let tries = 0; !/waiting in line/.test(child.stderr()); tries += 1) {
        assert.ok(tries < 400, `syncline run did not say it waits: ${child.stderr()}`);
        await sleep(50);
      }
    };
    try {
      await holdElsewhere('00000000-0000-4000-8000-00000000000a');
      const waiting = startCli(['run', 'crm-customers-to-erp'], { env });
      await untilWaiting(waiting);
      assert.match(waiting.stderr(), /waiting in line \(item [0-9a-f-]{36}\): its concurrency limit of 1 run\(s\) at once is reached/);
      await runtime('queue_items')
        .where('id', '00000000-0000-4000-8000-00000000000a')
        .update({ status: 'Complete', finished_at: new Date().toISOString() });
      assert.equal((await waiting.exited).code, 0, waiting.stderr());

      await holdElsewhere('00000000-0000-4000-8000-00000000000b');
      const stopped = startCli(['run', 'crm-customers-to-erp'], { env });
      await untilWaiting(stopped);
      assert.equal((await stopped.stop('SIGINT')).code, 1);
      const [cancelled] = (await runtime('queue_items').where({ start_type: 'manual' }).orderBy('created_at', 'desc').limit(1)) as Array<{
        status: string;
        errors: string;
        attempts: number;
      }>;
      assert.equal(cancelled!.status, 'Failed');
      assert.equal(Number(cancelled!.attempts), 0, 'it never ran');
      assert.match(cancelled!.errors, /interrupted by the operator while waiting in line/);

      // A holder whose lease ran out (a killed run, with no daemon to reap it): the waiting run
      // takes the item back itself, then runs.
      await runtime('queue_items').where('id', '00000000-0000-4000-8000-00000000000b').update({ status: 'Complete' });
      await holdElsewhere('00000000-0000-4000-8000-00000000000c');
      await runtime('queue_items')
        .where('id', '00000000-0000-4000-8000-00000000000c')
        .update({ lease_until: new Date(Date.now() - 1000).toISOString() });
      const behindDead = startCli(['run', 'crm-customers-to-erp'], { env });
      assert.equal((await behindDead.exited).code, 0, behindDead.stderr());
      const [lost] = (await runtime('queue_items').where('id', '00000000-0000-4000-8000-00000000000c')) as Array<{
        status: string;
        errors: string;
      }>;
      assert.equal(lost!.status, 'Failed');
      assert.match(lost!.errors, /lost its worker a-daemon-elsewhere/);
    } finally {
      await runtime('queue_items')
        .whereIn('id', [
          '00000000-0000-4000-8000-00000000000a',
          '00000000-0000-4000-8000-00000000000b',
          '00000000-0000-4000-8000-00000000000c',
        ])
        .delete();
      await runtime.destroy();
    }
  });

  it('exits 1 with the reason when the run fails', async () => {
    const ran = await run(['crm-customers-to-erp'], { CRM_DB: join(dir, 'missing.sqlite') });
    assert.equal(ran.code, 1);
    assert.match(ran.stdout, /^crm-customers-to-erp: Failed/);
    assert.match(ran.stdout, /Errors \(1\):\n {2}reading crm\/Customer: .*does not exist/);
    assert.doesNotMatch(ran.stderr + ran.stdout, /\n\s+at /, 'no stack trace');
  });
});
