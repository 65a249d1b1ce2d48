/**
 * Direct runs (StartProcessDirect, ExecuteProcess) that outlive their request and then meet a
 * shutdown: they get the drain time to finish, then go back to the queue — Pending, attempt given
 * back — instead of staying InProgress until a reaper fails them.
 */
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import type { RunProcess } from '../../../../runtime/execution/process-run.js';
import { runDirect, stopDirectRuns } from '../../../../runtime/http/run-direct.js';
import { getItem } from '../../../../runtime/queue/get-item.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';
import { fakeRunner, fakeSnapshot, runFor, runUntilAborted } from './fake-runner.js';

await describeEachRuntimeDatabase('direct runs at shutdown', (runtime) => {
  let db: RuntimeDatabase;
  beforeEach(async () => {
    db = runtime();
    await db.knex('queue_items').delete();
  });
  const snapshot = fakeSnapshot({ 'crm-to-erp': {} });

  test('a run that finishes within the drain time is recorded as it ends', async () => {
    const direct = await runDirect(fakeRunner(db, runFor(150)), snapshot, { processId: 'crm-to-erp', startType: 'manual' }, 10);
    assert.equal(direct.finished, false, 'answered 202 first');
    assert.equal(await stopDirectRuns(5_000), 0);
    assert.equal((await getItem(db, direct.item.id))?.status, 'Complete');
  });

  test('a run still going after the drain time is interrupted and released to Pending', async () => {
    const direct = await runDirect(fakeRunner(db, runUntilAborted), snapshot, { processId: 'crm-to-erp', startType: 'manual' }, 10);
    assert.equal(direct.item.status, 'InProgress');
    assert.equal(await stopDirectRuns(100), 1);
    const item = await getItem(db, direct.item.id);
    assert.equal(item?.status, 'Pending');
    assert.equal(item?.attempts, 0, 'the interrupted attempt is given back');
    assert.equal(item?.lockedBy, null);
  });

  test('a run that does not heed the interruption is released after a short grace, not waited for', async () => {
    // A connector call without a signal: the run goes on for 4 s whatever happens.
    let ended = false;
    const stubborn: RunProcess = async (...args) => {
      const outcome = await runFor(4000)(...args);
      ended = true;
      return outcome;
    };
    const direct = await runDirect(fakeRunner(db, stubborn), snapshot, { processId: 'crm-to-erp', startType: 'manual' }, 10);
    assert.equal(await stopDirectRuns(50), 1);
    assert.equal(ended, false, 'released while the run was still going');
    assert.equal((await getItem(db, direct.item.id))?.status, 'Pending');
  });
});
