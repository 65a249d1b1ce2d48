/**
 * The sync engine against real databases: statistics, match rules, parameters, filters, ad-hoc
 * starts, sources of every kind, flows with the record store, and the faults a run must survive
 * (or stop at) — always checked against what the target tables hold.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { Connection, WriteRequest } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import type { ProcessStart, RunEnvironment } from '../../../../runtime/execution/process-run.js';
import { readRecordsByGuid } from '../../../../runtime/record-store/read-records.js';
import { storeRecords } from '../../../../runtime/record-store/store-record.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import { parseWhereClause, WhereClauseError } from '../../../../runtime/sync/where-clause.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';
import { createTables, resetData, syncWorld, type SyncWorld } from './sync-fixture.js';

await describeEachRuntimeDatabase('sync engine', (runtime, database) => {
  let world: SyncWorld;
  const admin = () => database().admin;
  const run = (start: ProcessStart) => runProcess(world.environment, start);
  /** The test world's environment, with the target system 'tgt''s connection changed by `overrides`. */
  const withTarget = (overrides: (target: Connection) => Partial<Connection>): RunEnvironment => ({
    ...world.environment,
    connections: {
      async get(system) {
        const connection = await world.environment.connections.get(system);
        if (system.id !== 'tgt') return connection;
        return Object.assign(Object.create(connection) as Connection, overrides(connection));
      },
    },
  });
  /** The test world's environment, with the target system 'tgt' writing through `writeMany`. */
  const withTargetWrites = (
    writeMany: (target: Connection, object: string, requests: readonly WriteRequest[]) => ReturnType<Connection['writeMany']>,
  ): RunEnvironment =>
    withTarget((target) => ({ writeMany: (object: string, requests: readonly WriteRequest[]) => writeMany(target, object, requests) }));
  const accounts = async () =>
    (await admin()('accounts').select('number', 'name', 'email', 'score').orderBy('number')) as Array<Record<string, unknown>>;
  const numbers = async () => (await accounts()).map((row) => row.number);

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

  test('creates on the first run and updates on the second, with typed groups', async () => {
    const progress: number[] = [];
    const first = await run({ processId: 'accounts', onProgress: (s) => progress.push(s.read) });
    assert.equal(first.status, 'Complete', JSON.stringify(first.errors));
    assert.deepEqual(first.statistics, { read: 4, created: 4, updated: 0, skipped: 0, failed: 0 });
    assert.deepEqual(first.errors, []);
    assert.ok(progress.includes(2) && progress.at(-1) === 4, `progress after each page: ${progress}`);
    assert.deepEqual(await numbers(), ['C-1', 'C-2', 'C-4', 'C-5']);
    const addresses = await admin()('account_addresses').select('account_number', 'type', 'city').orderBy('account_number');
    assert.deepEqual(
      addresses.map((a) => [a.account_number, a.type, a.city]),
      [
        ['C-1', 'main', 'Lisbon'],
        ['C-2', 'main', 'Porto'],
        ['C-4', 'main', 'Braga'],
        ['C-5', 'main', 'Evora'],
      ],
    );

    await admin()('customers').where({ id: 1 }).update({ name: 'Ada L.', city: 'Sintra' });
    const second = await run({ processId: 'accounts' });
    // Only Ada changed: the other three targets already hold their values and are not written.
    assert.deepEqual(second.statistics, { read: 4, created: 0, updated: 1, skipped: 3, failed: 0, unchanged: 3 });
    const ada = (await accounts()).find((row) => row.number === 'C-1');
    assert.equal(ada?.name, 'Ada L.');
    assert.equal((await admin()('account_addresses').where({ account_number: 'C-1' }).first())?.city, 'Sintra');
    assert.equal((await accounts()).length, 4);
  });

  test('a target that compares its own writes is written without a search first, and leaves unchanged records alone', async () => {
    let searches = 0;
    const batches: WriteRequest[][] = [];
    const environment = withTarget((connection) => ({
      read: (object: string, request: Parameters<Connection['read']>[1]) => {
        searches += 1;
        return connection.read(object, request);
      },
      writeMany: (object: string, requests: readonly WriteRequest[]) => {
        batches.push([...requests]);
        return connection.writeMany(object, requests);
      },
    }));
    const contacts = async () => (await admin()('contacts').select('email', 'name').orderBy('email')) as Array<Record<string, unknown>>;
    const first = await runProcess(environment, { processId: 'contacts-by-email' });
    assert.deepEqual(first.statistics, { read: 5, created: 5, updated: 0, skipped: 0, failed: 0 });
    await admin()('customers').where({ id: 2 }).update({ name: 'Bob B.' });
    const second = await runProcess(environment, { processId: 'contacts-by-email' });
    // Bob changed; the other four already hold their values: compared by the target, not written.
    assert.deepEqual(second.statistics, { read: 5, created: 0, updated: 1, skipped: 4, failed: 0, unchanged: 4 });
    assert.deepEqual(
      (await contacts()).map((row) => row.name),
      ['Ada', 'Bob B.', 'Cy', 'Di', 'Ed'],
    );
    // Three pages a run, each one writeMany and no search.
    assert.equal(searches, 0);
    assert.equal(batches.length, 6);
    assert.ok(batches.flat().every((request) => request.leaveUnchanged === true));

    // Two contacts share Ada's email: the writes refuse that record, which the search then fails
    // in the run's own words; the others are still left as they are.
    await admin()('contacts').insert({ email: 'ada@example.com', name: 'Ada twin' });
    const third = await runProcess(environment, { processId: 'contacts-by-email' });
    assert.deepEqual(third.statistics, { read: 5, created: 0, updated: 0, skipped: 4, failed: 1, unchanged: 4 });
    assert.match(third.errors[0]?.message ?? '', /^2 records of tgt\/Contact match email = #email#/);
    assert.equal(searches, 1);
  });

  test('a record without a match value is created, and the run says that the next run creates it again', async () => {
    await admin()('customers').where({ id: 2 }).update({ email: null });
    for (const attempt of [1, 2]) {
      const outcome = await run({ processId: 'contacts-by-email' });
      assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
      assert.deepEqual(
        outcome.errors.map((error) => error.message),
        [
          "1 record(s) had no value for the match field(s) email (source ids: 2): a null matches no record, so each was created, and every run that reads it again creates it again; leave such records out with the sync's where, or give them a value",
        ],
        `run ${attempt}`,
      );
    }
    const unmatched = await admin()('contacts').whereNull('email');
    assert.equal(unmatched.length, 2, 'what the note warns of: one more at every run');
  });

  test('skip rules: onMatch skip creates only, onNoMatch skip updates only', async () => {
    await admin()('accounts').insert({ number: 'C-1', name: 'old' });
    const createOnly = await run({ processId: 'accounts-create-only' });
    assert.deepEqual(createOnly.statistics, { read: 4, created: 3, updated: 0, skipped: 1, failed: 0 });
    assert.equal((await accounts()).find((row) => row.number === 'C-1')?.name, 'old');

    await admin()('accounts').whereIn('number', ['C-4', 'C-5']).delete();
    const updateOnly = await run({ processId: 'accounts-update-only' });
    // C-2 already holds its values: unchanged, so skipped too.
    assert.deepEqual(updateOnly.statistics, { read: 4, created: 0, updated: 1, skipped: 3, failed: 0, unchanged: 1 });
    assert.deepEqual(await numbers(), ['C-1', 'C-2']);
    assert.equal((await accounts()).find((row) => row.number === 'C-1')?.name, 'Ada');
  });

  test('a target record created between the match search and the write is a match: onMatch skip leaves it, update updates it', async () => {
    // The target's search finds nothing, as when another run or sync creates the records after
    // this run searched: the connector's own lookup, atomic with its create, finds them.
    const blind: RunEnvironment = {
      ...world.environment,
      connections: {
        async get(system) {
          const connection = await world.environment.connections.get(system);
          if (system.id !== 'tgt') return connection;
          return Object.assign(Object.create(connection) as Connection, { read: async function* () {} });
        },
      },
    };
    await admin()('accounts').insert({ number: 'C-1', name: 'old' });
    const createOnly = await runProcess(blind, { processId: 'accounts-create-only' });
    assert.deepEqual(createOnly.statistics, { read: 4, created: 3, updated: 0, skipped: 1, failed: 0 });
    assert.equal((await accounts()).find((row) => row.number === 'C-1')?.name, 'old');
    const update = await runProcess(blind, { processId: 'accounts' });
    assert.deepEqual(update.statistics, { read: 4, created: 0, updated: 4, skipped: 0, failed: 0 });
    assert.deepEqual(await numbers(), ['C-1', 'C-2', 'C-4', 'C-5']);
    assert.equal((await accounts()).find((row) => row.number === 'C-1')?.name, 'Ada');
  });

  test('no match: always creates, so a second run fails per record on the key', async () => {
    assert.deepEqual((await run({ processId: 'accounts-no-match' })).statistics, {
      read: 4,
      created: 4,
      updated: 0,
      skipped: 0,
      failed: 0,
    });
    const again = await run({ processId: 'accounts-no-match' });
    assert.equal(again.status, 'Complete');
    assert.equal(again.statistics.failed, 4);
    assert.deepEqual(
      again.errors.map((e) => e.sourceId),
      ['1', '2', '4', '5'],
    );
    assert.equal((await accounts()).length, 4);
  });

  test('several matches, per onMultipleMatches (batched and searched)', async () => {
    const seed = async () => {
      await admin()('contacts').delete();
      await admin()('contacts').insert([
        { email: 'ada@example.com', name: 'one' },
        { email: 'ada@example.com', name: 'two' },
        { email: 'bob@example.com', name: 'bob' },
      ]);
    };
    const names = async () => (await admin()('contacts').select('name').orderBy('id')).map((row) => row.name);

    await seed();
    const fail = await run({ processId: 'contacts-fail' });
    assert.deepEqual(fail.statistics, { read: 2, created: 0, updated: 1, skipped: 0, failed: 1 });
    assert.equal(fail.errors.length, 1);
    assert.equal(fail.errors[0]!.sourceId, '1');
    assert.match(fail.errors[0]!.message, /^2 records of tgt\/Contact match/);
    assert.deepEqual(await names(), ['one', 'two', 'Bob']);

    await seed();
    assert.deepEqual((await run({ processId: 'contacts-updateFirst' })).statistics, {
      read: 2,
      created: 0,
      updated: 2,
      skipped: 0,
      failed: 0,
    });
    assert.deepEqual(await names(), ['Ada', 'two', 'Bob']);

    await seed();
    assert.deepEqual((await run({ processId: 'contacts-updateAll' })).statistics, {
      read: 2,
      created: 0,
      updated: 2,
      skipped: 0,
      failed: 0,
    });
    assert.deepEqual(await names(), ['Ada', 'Ada', 'Bob']);

    await seed();
    assert.deepEqual((await run({ processId: 'contacts-skip' })).statistics, { read: 2, created: 0, updated: 1, skipped: 1, failed: 0 });
    assert.deepEqual(await names(), ['one', 'two', 'Bob']);

    await seed();
    await admin()('contacts').where({ name: 'two' }).update({ email: 'ADA@example.com' });
    const searched = await run({ processId: 'contacts-searched' });
    assert.deepEqual(searched.statistics, { read: 2, created: 0, updated: 1, skipped: 0, failed: 1 });
    assert.match(searched.errors[0]!.message, /^2 records of tgt\/Contact match tolower\(email\)/);
  });

  test('$params in the mapping, #params.X# in the where and the precondition', async () => {
    const actionParams = [
      { Name: 'Prefix', Value: 'P-' },
      { Name: 'Suffix', Value: '(imported)' },
      { Name: 'MinScore', Value: '5' },
      { Name: 'Exclude', Value: 'Ed' },
    ];
    const outcome = await run({ processId: 'accounts-params', actionParams });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    // Ed excluded by the where; Di (1) under MinScore: skipped.
    assert.deepEqual(outcome.statistics, { read: 4, created: 3, updated: 0, skipped: 1, failed: 0 });
    assert.deepEqual(
      (await accounts()).map((row) => [row.number, row.name]),
      [
        ['P-1', 'Ada (imported)'],
        ['P-2', 'Bob (imported)'],
        ['P-3', 'Cy (imported)'],
      ],
    );
  });

  test('a WhereClause is AND-ed with the sync where; a bad one fails without retry', async () => {
    const outcome = await run({ processId: 'accounts', whereClause: 'id >= 2 AND id <> 5' });
    assert.deepEqual(outcome.statistics, { read: 2, created: 2, updated: 0, skipped: 0, failed: 0 });
    assert.deepEqual(await numbers(), ['C-2', 'C-4']);

    const snapshot = world.environment.snapshot;
    assert.throws(
      () => parseWhereClause(snapshot, 'accounts', 'id > 1 AND nosuch = 2'),
      (error: unknown) => error instanceof WhereClauseError && error.column === 12 && /has no field 'nosuch'/.test(error.message),
    );
    assert.throws(
      () => parseWhereClause(snapshot, 'accounts', 'id = = 2'),
      (error: unknown) => error instanceof WhereClauseError && error.column === 6 && /column 6/.test(error.message),
    );
    assert.throws(() => parseWhereClause(snapshot, 'accounts', 'name = #Other#'), WhereClauseError);
    assert.doesNotThrow(() => parseWhereClause(snapshot, 'store-flow', 'anything = 1'));

    const bad = await run({ processId: 'accounts', whereClause: 'nosuch = 2' });
    assert.equal(bad.status, 'Failed');
    assert.equal(bad.retryable, false);
    assert.match(bad.errors[0]!.message, /WhereClause, column 1: .*nosuch/);
    assert.equal((await accounts()).length, 2);
  });

  test('ad hoc: one record by its key; an unknown one completes with an error; a bad one fails', async () => {
    const one = await run({ processId: 'accounts', sourceId: '4' });
    assert.deepEqual(one.statistics, { read: 1, created: 1, updated: 0, skipped: 0, failed: 0 });
    assert.deepEqual(await numbers(), ['C-4']);

    const inactive = await run({ processId: 'accounts', sourceId: '3' });
    const missing = await run({ processId: 'accounts', sourceId: '999' });
    for (const [outcome, id] of [
      [inactive, '3'],
      [missing, '999'],
    ] as const) {
      assert.equal(outcome.status, 'Complete');
      assert.equal(outcome.statistics.read, 0);
      assert.equal(outcome.errors[0]?.sourceId, id);
      assert.match(outcome.errors[0]!.message, new RegExp(`source record '${id}' was not found`));
    }
    const bad = await run({ processId: 'accounts', sourceId: 'abc' });
    assert.equal(bad.status, 'Failed');
    assert.equal(bad.retryable, false);
    assert.deepEqual(await numbers(), ['C-4']);
  });

  test('a named query as the source, paged, with the WhereClause through #FlowFilter#', async () => {
    const outcome = await run({ processId: 'accounts-from-query', whereClause: 'id > 1' });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual(outcome.statistics, { read: 3, created: 3, updated: 0, skipped: 0, failed: 0 });
    assert.deepEqual(
      (await accounts()).map((row) => [row.number, row.score]),
      [
        ['Q-2', 5],
        ['Q-4', 1],
        ['Q-5', 8],
      ],
    );
    const adHoc = await run({ processId: 'accounts-from-query', sourceId: '1' });
    assert.deepEqual(adHoc.statistics, { read: 1, created: 1, updated: 0, skipped: 0, failed: 0 });
  });

  test('a mapping that throws for some records fails those, writes the others', async () => {
    const outcome = await run({ processId: 'accounts-some-fail' });
    assert.equal(outcome.status, 'Complete');
    assert.deepEqual(outcome.statistics, { read: 4, created: 2, updated: 0, skipped: 0, failed: 2 });
    assert.deepEqual(
      outcome.errors.map((e) => [e.sourceId, e.message]),
      [
        ['2', 'mapping: no account for 2'],
        ['4', 'mapping: no account for 4'],
      ],
    );
    assert.deepEqual(await numbers(), ['C-1', 'C-5']);
  });

  test('a target that rejects some writes (NOT NULL, CHECK): those fail with their source ids, nothing else is lost', async () => {
    await admin()('customers').insert([
      { id: 6, name: null, email: 'x@example.com', active: true, score: 1, city: 'Nowhere' },
      { id: 7, name: 'Neg', email: 'n@example.com', active: true, score: -1, city: 'Nowhere' },
    ]);
    const outcome = await run({ processId: 'accounts' });
    assert.equal(outcome.status, 'Complete');
    assert.deepEqual(outcome.statistics, { read: 6, created: 4, updated: 0, skipped: 0, failed: 2 });
    assert.deepEqual(
      outcome.errors.map((e) => e.sourceId),
      ['6', '7'],
    );
    assert.deepEqual(await numbers(), ['C-1', 'C-2', 'C-4', 'C-5']);
    // Each write is atomic: no address was left behind for the refused records.
    assert.deepEqual(
      (await admin()('account_addresses').select('account_number').orderBy('account_number')).map((a) => a.account_number),
      ['C-1', 'C-2', 'C-4', 'C-5'],
    );
  });

  test('maxErrors keeps that many record errors and counts the rest', async () => {
    const outcome = await run({ processId: 'accounts-capped' });
    assert.equal(outcome.status, 'Complete');
    assert.equal(outcome.statistics.failed, 4);
    assert.deepEqual(
      outcome.errors.map((e) => e.sourceId),
      ['1', '2', undefined],
    );
    assert.match(outcome.errors[2]!.message, /^2 more record error\(s\) were not kept \(maxErrors is 2\)/);
    assert.deepEqual(await accounts(), []);
  });

  test('a source table that goes away mid-run: Failed, retryable, with the statistics so far', async () => {
    await admin()('doomed').delete();
    await admin()('doomed').insert(
      Array.from({ length: 12 }, (_, i) => ({ id: i + 1, name: `N${i + 1}`, active: true, score: 1, city: 'X' })),
    );
    // The table is dropped once the first page is written, and the target's next write waits for
    // the drop: SQLite, where source and target share a file, would otherwise let the drop in only
    // between the run's own writes, which may be never before the last page.
    let dropped: Promise<void> | undefined;
    const waitingForTheDrop = withTargetWrites(async (target, object, requests) => {
      await dropped;
      return target.writeMany(object, requests);
    });
    const outcome = await runProcess(waitingForTheDrop, {
      processId: 'accounts-from-doomed',
      onProgress: () => {
        // A promise of its own: a Knex builder would run its statement again for every await.
        dropped ??= Promise.resolve(admin().schema.dropTable('doomed'));
      },
    });
    // The drop happens while the next page may already be on its way; the one after fails.
    assert.equal(outcome.status, 'Failed');
    assert.equal(outcome.retryable, true);
    assert.match(outcome.errors[0]!.message, /^reading src\/Doomed: /);
    assert.ok(outcome.statistics.read >= 2 && outcome.statistics.read < 12, JSON.stringify(outcome.statistics));
    assert.equal(outcome.statistics.created, outcome.statistics.read);
    assert.equal((await accounts()).length, outcome.statistics.created);
    await createTables(admin());
  });

  test('a target that fails partway through a page: what it wrote is counted, then the run stops, retryable', async () => {
    // The target writes every record of the first page (two records) but the first, which it answers as not made.
    const partway = withTargetWrites(async (target, object, requests) => {
      const lost = new ConnectorError('unavailable', "system 'tgt' stopped answering");
      return [lost, ...(await target.writeMany(object, requests.slice(1)))];
    });
    const outcome = await runProcess(partway, { processId: 'accounts' });
    assert.equal(outcome.status, 'Failed');
    assert.equal(outcome.retryable, true);
    assert.match(outcome.errors.at(-1)!.message, /stopped answering/);
    assert.deepEqual(outcome.statistics, { read: 2, created: 1, updated: 0, skipped: 0, failed: 0 });
    assert.deepEqual(await numbers(), ['C-2']);
  });

  test('a source read stopped at the statement timeout: Failed, retryable (a later try may find the system less loaded)', async () => {
    const outcome = await run({ processId: 'accounts-from-slow-query' });
    assert.equal(outcome.status, 'Failed');
    assert.equal(outcome.retryable, true);
    assert.match(
      outcome.errors[0]!.message,
      /^reading slow-src\/minutesLong: system 'slow-src': stopped .* at the statement timeout of 1s/,
    );
    assert.deepEqual(await accounts(), []);
  });

  test('an aborted run fails with the reason, retryable', async () => {
    const controller = new AbortController();
    controller.abort(new Error('the lease was lost'));
    const outcome = await run({ processId: 'accounts', signal: controller.signal });
    assert.equal(outcome.status, 'Failed');
    assert.equal(outcome.retryable, true);
    assert.equal(outcome.errors[0]!.message, 'the lease was lost');
  });

  test('an unknown process fails without retry', async () => {
    const outcome = await run({ processId: 'nothing-here' });
    assert.equal(outcome.status, 'Failed');
    assert.equal(outcome.retryable, false);
    assert.match(outcome.errors[0]!.message, /'nothing-here'/);
  });

  test('a flow reads the record store and deletes what it used after success', async () => {
    const guids = await storeRecords(runtime(), 'accounts-from-store', [
      { id: 1, name: 'One' },
      { id: 2, name: 'Two' },
      { id: 3, name: null },
    ]);
    const adHoc = await run({ processId: 'store-flow', sourceId: guids[0]! });
    assert.equal(adHoc.status, 'Complete', JSON.stringify(adHoc.errors));
    assert.deepEqual(adHoc.statistics, { read: 1, created: 1, updated: 0, skipped: 0, failed: 0 });
    assert.deepEqual(await numbers(), ['S-1']);
    assert.deepEqual((await readRecordsByGuid(runtime(), guids)).map((r) => r.guid).sort(), guids.slice(1).sort());

    const all = await run({ processId: 'store-flow' });
    assert.deepEqual(all.statistics, { read: 2, created: 1, updated: 0, skipped: 0, failed: 1 });
    assert.equal(all.errors[0]!.sourceId, guids[2]);
    assert.match(all.errors[0]!.message, /^step 1 \(sync accounts-from-store\): /);
    assert.deepEqual(await numbers(), ['S-1', 'S-2']);
    // The record that failed stays for another try.
    assert.deepEqual(
      (await readRecordsByGuid(runtime(), guids)).map((r) => r.guid),
      [guids[2]],
    );
  });

  test('a record-store sync run on its own deletes the entries it wrote and keeps the failed ones', async () => {
    const guids = await storeRecords(runtime(), 'accounts-from-store', [
      { id: 4, name: 'Four' },
      { id: 5, name: null },
    ]);
    const outcome = await run({ processId: 'accounts-from-store' });
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual(outcome.statistics, { read: 2, created: 1, updated: 0, skipped: 0, failed: 1 });
    assert.deepEqual(
      (await readRecordsByGuid(runtime(), guids)).map((r) => r.guid),
      [guids[1]],
      'only the failed record waits for another try',
    );
    const again = await run({ processId: 'accounts-from-store' });
    assert.equal(again.statistics.read, 1, 'the next run does not read what was done');
  });

  test('a flow whose step fails keeps its record-store entries; continueOnError goes on', async () => {
    const guids = await storeRecords(runtime(), 'accounts-from-store', [{ id: 7, name: 'Seven' }]);
    const failing = await run({ processId: 'store-flow-failing' });
    assert.equal(failing.status, 'Failed');
    assert.equal(failing.retryable, true);
    assert.match(failing.errors[0]!.message, /^step 2 \(broken\): writing tgt\/Missing: /);
    assert.equal(failing.statistics.created, 1);
    assert.deepEqual(await numbers(), ['S-7']);
    assert.equal((await readRecordsByGuid(runtime(), guids)).length, 1);

    const tolerant = await run({ processId: 'store-flow-tolerant' });
    assert.equal(tolerant.status, 'Complete');
    // Step 2 read the five customers before its first write failed.
    assert.deepEqual(tolerant.statistics, { read: 6, created: 0, updated: 0, skipped: 1, failed: 0, unchanged: 1 });
    assert.match(tolerant.errors[0]!.message, /^step 2 \(sync to-missing\): /);
    assert.equal((await readRecordsByGuid(runtime(), guids)).length, 0);
  });
});
