/** The record store on every engine: put under new GUIDs, read a sync's records page by page and by GUID, delete. */
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { deleteRecords } from '../../../../runtime/record-store/delete-records.js';
import { readRecords, readRecordsByGuid, type RecordCursor } from '../../../../runtime/record-store/read-records.js';
import { storeRecord, storeRecords } from '../../../../runtime/record-store/store-record.js';
import { at, describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';

await describeEachRuntimeDatabase('record store', (runtime) => {
  beforeEach(async () => {
    await runtime().knex('record_store').delete();
  });

  test('a record is stored under a new GUID and read back exactly, key order included', async () => {
    const record = {
      zeta: 1,
      alpha: 'Grüße ✓ "quoted" \\ \u2028',
      nested: { list: [1, 2.5, null, true], empty: {} },
      big: 'x'.repeat(100_000),
    };
    const guid = await storeRecord(runtime(), 'shop-orders', record, { now: new Date('2030-01-01T00:00:00.250Z') });
    assert.match(guid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [stored] = await readRecordsByGuid(runtime(), [guid]);
    assert.deepEqual(stored, { guid, syncId: 'shop-orders', record, createdAt: new Date('2030-01-01T00:00:00.250Z') });
    assert.deepEqual(Object.keys(stored!.record), ['zeta', 'alpha', 'nested', 'big']);
  });

  test('only JSON objects are stored', async () => {
    await assert.rejects(storeRecords(runtime(), 's', [{ ok: 1 }, [1, 2] as never]), /record 2 must be a JSON object, not an array/);
    await assert.rejects(storeRecord(runtime(), 's', null as never), /record 1 must be a JSON object, not null/);
    assert.deepEqual((await readRecords(runtime(), { syncId: 's', limit: 10 })).records, [], 'a refused batch stores nothing');
  });

  test('a sync’s records are read in arrival order, page by page, and other syncs’ are not', async () => {
    const first = await storeRecords(runtime(), 'orders', [{ n: 1 }, { n: 2 }, { n: 3 }], { now: at(0) });
    await storeRecords(runtime(), 'customers', [{ n: 'other' }], { now: at(1) });
    const second = await storeRecords(runtime(), 'orders', [{ n: 4 }, { n: 5 }], { now: at(2) });

    const seen: number[] = [];
    const guids: string[] = [];
    let after: RecordCursor | undefined;
    let pages = 0;
    for (;;) {
      const page = await readRecords(runtime(), { syncId: 'orders', limit: 2, ...(after === undefined ? {} : { after }) });
      pages += 1;
      seen.push(...page.records.map((entry) => entry.record.n as number));
      guids.push(...page.records.map((entry) => entry.guid));
      if (page.next === null) break;
      after = page.next;
      if (pages === 1) await deleteRecords(runtime(), [page.records[0]!.guid]);
    }
    assert.equal(pages, 3);
    assert.equal(guids.length, 5);
    assert.deepEqual(new Set(guids), new Set([...first, ...second]), 'every record once, though one was deleted meanwhile');
    assert.deepEqual(new Set(seen.slice(0, 3)), new Set([1, 2, 3]));
    assert.deepEqual(new Set(seen.slice(3)), new Set([4, 5]), 'later arrivals come later');
  });

  test('records are read and deleted by GUID; unknown and malformed GUIDs are ignored', async () => {
    const [a, b, c] = await storeRecords(runtime(), 'orders', [{ n: 1 }, { n: 2 }, { n: 3 }], { now: at(0) });
    const [other] = await storeRecords(runtime(), 'customers', [{ n: 9 }], { now: at(0) });
    const unknown = '6f1c2a8e-5b0d-4c39-9a57-3e2b1d0c9f88';

    assert.deepEqual(
      (await readRecordsByGuid(runtime(), [c!, a!.toUpperCase(), unknown, 'nope'])).map((entry) => entry.record.n).sort(),
      [1, 3],
    );
    assert.deepEqual(await readRecordsByGuid(runtime(), [other!], 'orders'), [], 'limited to the sync when given');

    assert.equal(await deleteRecords(runtime(), [a!, b!, unknown, "' OR 1=1 --"], 'orders'), 2);
    assert.equal(await deleteRecords(runtime(), [other!], 'orders'), 0, 'another sync’s record stays');
    assert.deepEqual(
      (await readRecords(runtime(), { syncId: 'orders', limit: 10 })).records.map((entry) => entry.guid),
      [c],
    );
    assert.equal(await deleteRecords(runtime(), []), 0);
  });

  test('large batches are stored and deleted whole', async () => {
    const records = Array.from({ length: 1234 }, (_, n) => ({ n }));
    const guids = await storeRecords(runtime(), 'bulk', records, { now: at(0) });
    assert.equal(new Set(guids).size, 1234);
    assert.equal((await readRecordsByGuid(runtime(), guids)).length, 1234);
    assert.equal(await deleteRecords(runtime(), guids), 1234);
  });
});
