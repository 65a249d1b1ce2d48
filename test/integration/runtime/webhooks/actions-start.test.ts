/**
 * startSync through runWebhookAction: an ad-hoc queue item with the data as ActionParams, or stored
 * in the record store with only the GUID passed; a flow storing into its first step's record
 * store; array bodies as batches — and the queued items actually run with what they were given.
 */
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { getItem } from '../../../../runtime/queue/get-item.js';
import { readRecordsByGuid } from '../../../../runtime/record-store/read-records.js';
import { runProcess } from '../../../../runtime/sync/run-process.js';
import type { QueueItem } from '../../../../runtime/queue/queue-item.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';
import { ids, useActionWorld } from './actions-fixture.js';

await describeEachRuntimeDatabase('webhook startSync', (runtime, database) => {
  const world = useActionWorld(runtime, database);
  const admin = () => database().admin;
  beforeEach(async () => {
    await runtime().knex('record_store').delete();
    await runtime().knex('queue_items').delete();
  });
  const runItem = async (id: string) => {
    const row = (await getItem(runtime(), id))!;
    return runProcess(
      { snapshot: world().snapshot, connections: world().connections, db: runtime() },
      { processId: row.processId, sourceId: row.sourceId, actionParams: row.actionParams },
    );
  };

  test('a sync: one Pending AdHoc item, top-level fields as ActionParams (nested values as JSON text)', async () => {
    const { answer, ticker } = await world().call(ids.startParams, {
      Exclude: 'Bob',
      count: 3,
      ok: true,
      none: null,
      nested: { a: [1, 'x'] },
    });
    assert.equal(answer.status, 200);
    const item = answer.body as QueueItem;
    assert.equal(answer.queueItemId, item.ID);
    assert.deepEqual([item.StartType, item.ProcessId, item.Status], ['AdHoc', 'accounts', 'Pending']);
    const row = await getItem(runtime(), item.ID);
    assert.deepEqual(row?.actionParams, [
      { Name: 'Exclude', Value: 'Bob' },
      { Name: 'count', Value: '3' },
      { Name: 'ok', Value: 'true' },
      { Name: 'nested', Value: '{"a":[1,"x"]}' },
    ]);
    assert.equal(row?.sourceId, null);
    assert.equal(row?.maxAttempts, world().snapshot.syncs.get('accounts')!.definition.retries.max + 1);
    assert.deepEqual(
      ticker.messages.map((m) => m.kind),
      ['start', 'queued'],
    );
    assert.equal(ticker.messages[1]?.data?.queueItemId, item.ID);
  });

  test('recordStore: the data is stored under a GUID, the item carries only the GUID, and the run syncs it', async () => {
    const { answer, ticker } = await world().call(ids.startStore, { id: 42, name: 'Webhook Wendy' });
    const item = answer.body as QueueItem;
    const row = (await getItem(runtime(), item.ID))!;
    assert.equal(row.actionParams, null);
    const [stored] = await readRecordsByGuid(runtime(), [row.sourceId!], 'accounts-from-store');
    assert.deepEqual(stored?.record, { id: 42, name: 'Webhook Wendy' });
    assert.deepEqual(
      ticker.messages.map((m) => m.kind),
      ['start', 'stored', 'queued'],
    );
    const outcome = await runItem(item.ID);
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.deepEqual((await admin()('accounts').where({ number: 'S-42' }).first())?.name, 'Webhook Wendy');
  });

  test('an array body: one stored record and one item per element; an empty array starts nothing (204)', async () => {
    const { answer } = await world().call(ids.startStore, [
      { id: 7, name: 'A' },
      { id: 8, name: 'B' },
    ]);
    const items = answer.body as QueueItem[];
    assert.equal(items.length, 2);
    assert.equal(answer.queueItemId, items[0]!.ID);
    assert.equal(
      await runtime()
        .knex('record_store')
        .count({ n: '*' })
        .then((r) => Number(r[0]!.n)),
      2,
    );
    assert.deepEqual((await world().call(ids.startStore, [])).answer, { status: 204 });
    // Elements that are no object are refused before anything is stored.
    const { error } = await world().refused(ids.startStore, [{ id: 9 }, 'text']);
    assert.equal(error.status, 400);
    assert.deepEqual(error.extra?.errors, [{ path: '/1', message: 'Record 2 must be a JSON object, not string.' }]);
    assert.equal(
      await runtime()
        .knex('record_store')
        .count({ n: '*' })
        .then((r) => Number(r[0]!.n)),
      2,
    );
  });

  test('a flow: the data goes to the record store of its first step, the flow is queued, and its run deletes the entry', async () => {
    const { answer } = await world().call(ids.startFlow, { id: 77, name: 'Flow Fay' });
    const item = answer.body as QueueItem;
    assert.equal(item.ProcessId, 'store-flow');
    const row = (await getItem(runtime(), item.ID))!;
    assert.equal((await readRecordsByGuid(runtime(), [row.sourceId!], 'accounts-from-store')).length, 1);
    const outcome = await runItem(item.ID);
    assert.equal(outcome.status, 'Complete', JSON.stringify(outcome.errors));
    assert.equal((await admin()('accounts').where({ number: 'S-77' }).first())?.name, 'Flow Fay');
    assert.equal((await readRecordsByGuid(runtime(), [row.sourceId!])).length, 0);
  });

  test('too many parameters or too long a value: 400 naming it, nothing queued', async () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`p${i}`, i]));
    assert.equal((await world().refused(ids.startParams, many)).error.status, 400);
    const { error } = await world().refused(ids.startParams, { long: 'x'.repeat(9000) });
    assert.equal((error.extra?.errors?.[0] as { path: string } | undefined)?.path, '/long');
    assert.equal(
      await runtime()
        .knex('queue_items')
        .count({ n: '*' })
        .then((r) => Number(r[0]!.n)),
      0,
    );
  });

  test('injection payloads as parameters are data: the run excludes nothing it should not and drops no table', async () => {
    for (const payload of ["Bob' OR '1'='1", "x'; DROP TABLE customers; --"]) {
      const { answer } = await world().call(ids.startParams, { Exclude: payload });
      const row = (await getItem(runtime(), answer.queueItemId!))!;
      assert.deepEqual(row.actionParams, [{ Name: 'Exclude', Value: payload }]);
    }
    assert.equal(
      await admin()('customers')
        .count({ n: '*' })
        .then((r) => Number(r[0]!.n)),
      5,
    );
  });
});
