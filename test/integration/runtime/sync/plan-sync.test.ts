/**
 * The dry run against real databases: for syncs of every kind — batched and searched matches,
 * every match rule, typed groups, a query and a record-store source, mapping and value failures,
 * records of a later page matching what an earlier one creates — the plan writes nothing (every
 * table and the record store as before), and then the real run does what it planned: the same
 * statistics, and the target as the plan's creates and changes, applied in order, leave it.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { ProcessStart } from '../../../../runtime/execution/process-run.js';
import { storeRecords } from '../../../../runtime/record-store/store-record.js';
import { planSync } from '../../../../runtime/sync/plan-sync.js';
import type { PlannedRecord } from '../../../../runtime/sync/planned-record.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';
import { createTables, resetData, syncWorld, type SyncWorld } from './sync-fixture.js';

type Row = Record<string, unknown>;

await describeEachRuntimeDatabase('dry run', (runtime, database) => {
  let world: SyncWorld;
  const admin = () => database().admin;

  before(async () => {
    await createTables(admin());
    world = await syncWorld(database(), runtime());
  });
  after(async () => {
    await world?.close();
  });
  beforeEach(async () => {
    await resetData(admin());
    await runtime().knex('record_store').delete();
  });

  /** Every table a sync could touch, and the record store. */
  async function everything(): Promise<Record<string, Row[]>> {
    return {
      accounts: await admin()('accounts').orderBy('number'),
      addresses: await admin()('account_addresses').orderBy(['account_number', 'type']),
      contacts: await admin()('contacts').orderBy('id'),
      customers: await admin()('customers').orderBy('id'),
      store: await runtime().knex('record_store').select('guid', 'sync_id', 'record').orderBy('guid'),
    };
  }

  /** Accounts as field label → value, nulls left out: the form a plan's values and changes take. */
  async function accounts(): Promise<Record<string, Row>> {
    const byNumber: Record<string, Row> = {};
    for (const row of (await admin()('accounts')) as Row[]) byNumber[String(row.number)] = withoutNulls({ ...row, score: row.score });
    for (const row of (await admin()('account_addresses')) as Row[]) {
      if (row.city !== null) byNumber[String(row.account_number)]![`addresses[${row.type}].city`] = row.city;
    }
    return byNumber;
  }

  /** The accounts as the plan says the run leaves them: its creates and changes applied in source order. */
  function applyPlan(start: Record<string, Row>, planned: readonly PlannedRecord[]): Record<string, Row> {
    const result = structuredClone(start);
    for (const record of [...planned].sort((a, b) => a.position - b.position)) {
      if (record.action === 'create') result[String(record.values!.number)] = withoutNulls({ ...record.values });
      for (const target of record.targets ?? []) {
        const account = result[String(target.key.number)]!;
        for (const change of target.changes) {
          if (change.new === null) delete account[change.field];
          else account[change.field] = change.new;
        }
      }
    }
    return result;
  }

  function withoutNulls(row: Row): Row {
    return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null && value !== undefined));
  }

  /**
   * Plans `start`, checks that nothing changed and that each record read has one plan whose
   * actions add up to the statistics, then runs it for real and checks the run did what was planned.
   */
  async function planThenRun(start: ProcessStart, options: { accounts?: boolean } = {}) {
    const sync = world.environment.snapshot.syncs.get(start.processId)!;
    const before = await everything();
    const beforeAccounts = await accounts();
    const planned: PlannedRecord[] = [];
    const plan = await planSync(world.environment, start, sync, (record) => planned.push(record));
    assert.equal(plan.status, 'Complete', JSON.stringify(plan.errors));
    assert.deepEqual(await everything(), before, 'the plan wrote nothing');
    const count = (...actions: string[]) => planned.filter((record) => actions.includes(record.action)).length;
    assert.deepEqual(
      {
        read: planned.length,
        created: count('create'),
        updated: count('update'),
        skipped: count('skip', 'unchanged'),
        failed: count('fail'),
        ...(count('unchanged') === 0 ? {} : { unchanged: count('unchanged') }),
      },
      plan.statistics,
    );
    assert.deepEqual(
      planned.map((record) => record.position).sort((a, b) => a - b),
      planned.map((_, index) => index + 1),
      'one plan per record read',
    );
    const run = await runProcess(world.environment, start);
    assert.equal(run.status, 'Complete', JSON.stringify(run.errors));
    if (options.accounts !== false)
      assert.deepEqual(await accounts(), applyPlan(beforeAccounts, planned), 'the run left the target as planned');
    return { plan, planned, run, byId: (sourceId: string) => planned.find((record) => record.sourceId === sourceId)! };
  }

  test('creates, updates field by field, unchanged: planned, then done', async () => {
    await admin()('accounts').insert([
      { number: 'C-1', name: 'Ada (old)', email: 'ada@example.com', score: 10 },
      { number: 'C-2', name: 'Bob', email: 'bob@example.com', score: 5 },
    ]);
    await admin()('account_addresses').insert([
      { account_number: 'C-1', type: 'main', city: 'Coimbra' },
      { account_number: 'C-2', type: 'main', city: 'Porto' },
    ]);
    const { plan, run, byId } = await planThenRun({ processId: 'accounts' });
    assert.deepEqual(plan.statistics, { read: 4, created: 2, updated: 1, skipped: 1, failed: 0, unchanged: 1 });
    assert.deepEqual(run.statistics, plan.statistics);
    assert.deepEqual(byId('1'), {
      position: 1,
      sourceId: '1',
      action: 'update',
      targets: [
        {
          key: { number: 'C-1' },
          changes: [
            { field: 'name', old: 'Ada (old)', new: 'Ada' },
            { field: 'addresses[main].city', old: 'Coimbra', new: 'Lisbon' },
          ],
        },
      ],
    });
    assert.deepEqual(byId('2'), { position: 2, sourceId: '2', action: 'unchanged', targets: [{ key: { number: 'C-2' }, changes: [] }] });
    assert.deepEqual(byId('4'), {
      position: 3,
      sourceId: '4',
      action: 'create',
      key: { number: 'C-4' },
      values: { number: 'C-4', name: 'Di', email: 'di@example.com', score: 1, 'addresses[main].city': 'Braga' },
    });
  });

  test('skips with the rule that skips them', async () => {
    await admin()('accounts').insert({ number: 'C-1', name: 'old' });
    const createOnly = await planThenRun({ processId: 'accounts-create-only' });
    assert.deepEqual(createOnly.byId('1'), {
      position: 1,
      sourceId: '1',
      action: 'skip',
      rule: 'onMatch',
      reason: 'Account C-1 matches (onMatch: skip)',
    });
    await resetData(admin());
    await admin()('accounts').insert({ number: 'C-1', name: 'old' });
    const updateOnly = await planThenRun({ processId: 'accounts-update-only' });
    assert.deepEqual(updateOnly.byId('2'), {
      position: 2,
      sourceId: '2',
      action: 'skip',
      rule: 'onNoMatch',
      reason: 'no Account matches number = #number# (onNoMatch: skip)',
    });
    const params = await planThenRun({
      processId: 'accounts-params',
      actionParams: [
        { Name: 'Exclude', Value: 'Cy' },
        { Name: 'MinScore', Value: '6' },
        { Name: 'Prefix', Value: 'P-' },
        { Name: 'Suffix', Value: 'Jr' },
      ],
    });
    assert.deepEqual(params.byId('2'), {
      position: 2,
      sourceId: '2',
      action: 'skip',
      rule: 'precondition',
      reason: 'the precondition score >= #params.MinScore# is not met',
    });
  });

  test('failures: the mapping, and values the target refuses before it is asked', async () => {
    const mapping = await planThenRun({ processId: 'accounts-some-fail' });
    assert.deepEqual(mapping.byId('2'), { position: 2, sourceId: '2', action: 'fail', reason: 'mapping: no account for 2' });
    await resetData(admin());
    const values = await planThenRun({ processId: 'accounts-bad-values' });
    assert.deepEqual(values.byId('4'), {
      position: 3,
      sourceId: '4',
      action: 'fail',
      reason: "Account.score: expected a whole number, got 'lots'",
    });
    assert.deepEqual(values.run.errors, [{ sourceId: '4', message: values.byId('4').reason }], 'the run fails it with the same words');
  });

  test('a record of a later page matching what an earlier one would create is planned as its update (batched)', async () => {
    const { planned, run } = await planThenRun({ processId: 'accounts-pairs' });
    assert.deepEqual(run.statistics, { read: 4, created: 2, updated: 2, skipped: 0, failed: 0 });
    assert.deepEqual(
      planned.map((record) => [record.sourceId, record.action, record.targets?.[0]?.createdBy?.position, record.targets?.[0]?.changes]),
      [
        ['1', 'create', undefined, undefined],
        ['2', 'create', undefined, undefined],
        [
          '4',
          'update',
          2,
          [
            { field: 'name', old: 'Bob', new: 'Di' },
            { field: 'score', old: 5, new: 1 },
          ],
        ],
        [
          '5',
          'update',
          1,
          [
            { field: 'name', old: 'Ada', new: 'Ed' },
            { field: 'score', old: 10, new: 8 },
          ],
        ],
      ],
    );
  });

  test('... and searched record by record: the earlier record would be found by match.where', async () => {
    const { planned, run } = await planThenRun({ processId: 'contacts-pairs-searched' }, { accounts: false });
    assert.deepEqual(run.statistics, { read: 4, created: 2, updated: 2, skipped: 0, failed: 0 });
    assert.deepEqual(
      planned.map((record) => [record.sourceId, record.action, record.targets?.[0]?.createdBy?.position]),
      [
        ['1', 'create', undefined],
        ['2', 'create', undefined],
        ['4', 'update', 2],
        ['5', 'update', 1],
      ],
    );
  });

  test('several matches, per onMultipleMatches, batched and searched', async () => {
    for (const rule of ['fail', 'updateFirst', 'updateAll', 'skip', 'searched']) {
      await admin()('contacts').delete();
      await admin()('contacts').insert([
        { email: 'ada@example.com', name: 'one' },
        { email: 'ada@example.com', name: 'two' },
        { email: 'bob@example.com', name: 'Bob' },
      ]);
      const { planned } = await planThenRun({ processId: `contacts-${rule}` }, { accounts: false });
      const ada = planned.find((record) => record.sourceId === '1')!;
      const expected = { fail: 'fail', updateFirst: 'update', updateAll: 'update', skip: 'skip', searched: 'fail' }[rule];
      assert.equal(ada.action, expected, rule);
      if (rule === 'updateAll') assert.equal(ada.targets?.length, 2);
      if (rule === 'fail') assert.match(ada.reason!, /^2 records of tgt\/Contact match email = #email#; onMultipleMatches is fail/);
      assert.equal(planned.find((record) => record.sourceId === '2')?.action, 'unchanged', rule);
    }
  });

  test('a query source, and a record store that is read, not emptied', async () => {
    await planThenRun({ processId: 'accounts-from-query' });
    await storeRecords(runtime(), 'accounts-from-store', [
      { id: 1, name: 'One' },
      { id: 2, name: 'Two' },
    ]);
    const stored = await runtime().knex('record_store').count({ n: '*' });
    const planned: PlannedRecord[] = [];
    const sync = world.environment.snapshot.syncs.get('accounts-from-store')!;
    const plan = await planSync(world.environment, { processId: 'accounts-from-store' }, sync, (record) => planned.push(record));
    assert.deepEqual(plan.statistics, { read: 2, created: 2, updated: 0, skipped: 0, failed: 0 });
    assert.deepEqual(await runtime().knex('record_store').count({ n: '*' }), stored, 'the record store keeps its records');
    const { snapshot, connections } = world.environment;
    const withoutDatabase = await planSync(
      { snapshot, connections },
      { processId: 'accounts' },
      snapshot.syncs.get('accounts')!,
      () => undefined,
    );
    assert.equal(withoutDatabase.status, 'Complete', 'an object source needs no runtime database');
  });

  test('a plan shows what only the database refuses as planned: unique keys are not known before writing', async () => {
    await admin()('accounts').insert({ number: 'C-1', name: 'taken' });
    const planned: PlannedRecord[] = [];
    const sync = world.environment.snapshot.syncs.get('accounts-no-match')!;
    const plan = await planSync(world.environment, { processId: 'accounts-no-match' }, sync, (record) => planned.push(record));
    assert.deepEqual(plan.statistics, { read: 4, created: 4, updated: 0, skipped: 0, failed: 0 });
    const run = await runProcess(world.environment, { processId: 'accounts-no-match' });
    assert.deepEqual(run.statistics, { read: 4, created: 3, updated: 0, skipped: 0, failed: 1 });
  });
});
