import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeKey, KEYS_PER_GENERATION, RepeatedRecords, type RepeatedPage } from '../../../../connectors/records/repeated-records.js';

const records = (...ids: unknown[]) => ids.map((id) => ({ id, name: `n${String(id)}` }));
const ids = (page: ReadonlyArray<{ id?: unknown }>) => page.map((record) => record.id);

class Stopped extends Error {
  constructor(readonly repeat: RepeatedPage) {
    super('stopped');
  }
}
const stop = (repeat: RepeatedPage) => new Stopped(repeat);

function stoppedWith(repeat: RepeatedPage): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof Stopped, String(error));
    assert.deepEqual(error.repeat, repeat);
    return true;
  };
}

test('records whose key came on an earlier page are passed over, in any type of its text', () => {
  const repeats = new RepeatedRecords(['id']);
  assert.deepEqual(ids(repeats.fresh(records(1, 2, 3), stop)), [1, 2, 3]);
  // 3 moved a page on by an insert; '3' is the same key as 3, as records compare keys.
  assert.deepEqual(ids(repeats.fresh(records('3', 4, 5), stop)), [4, 5]);
  assert.deepEqual(ids(repeats.fresh([], stop)), []);
});

test('one page of more repeats than new records is let by; the second in a row stops the read', () => {
  const repeats = new RepeatedRecords(['id']);
  repeats.fresh(records(1, 2, 3, 4), stop);
  // The last page of a list inserted into while read: nothing new, then the empty page.
  assert.deepEqual(ids(repeats.fresh(records(3, 4), stop)), []);
  assert.deepEqual(ids(repeats.fresh(records(5, 6, 7), stop)), [5, 6, 7], 'a page with more new than repeats starts the count again');
  assert.deepEqual(ids(repeats.fresh(records(8, 1, 2), stop)), [8]);
  assert.throws(() => repeats.fresh(records(9, 5, 6), stop), stoppedWith({ key: ['5'], repeated: 2, count: 3 }));
});

test('the same key twice in one page is passed over without counting towards a stop', () => {
  const repeats = new RepeatedRecords(['id']);
  assert.deepEqual(ids(repeats.fresh(records(1, 1, 1, 2), stop)), [1, 2]);
  assert.deepEqual(ids(repeats.fresh(records(3, 3, 3, 4), stop)), [3, 4]);
  assert.deepEqual(ids(repeats.fresh(records(5, 5, 5), stop)), [5]);
});

test('a composite key compares all its values, and a message names each', () => {
  const repeats = new RepeatedRecords(['order', 'line']);
  const lines = (...pairs: Array<[number, string]>) => pairs.map(([order, line]) => ({ order, line }));
  assert.equal(repeats.fresh(lines([7, 'a'], [7, 'b']), stop).length, 2);
  assert.equal(repeats.fresh(lines([7, 'a'], [8, 'a'], [8, 'b']), stop).length, 2);
  repeats.fresh(lines([7, 'a'], [7, 'b']), stop);
  assert.throws(() => repeats.fresh(lines([7, 'b'], [8, 'a']), stop), stoppedWith({ key: ['7', 'b'], repeated: 2, count: 2 }));
  assert.equal(describeKey('Line', ['order', 'line'], ['7', 'b']), 'Line order 7, line b');
  assert.equal(describeKey('Item', ['code'], ['a b\n']), 'Item code "a b\\n"');
  assert.equal(describeKey('Item', ['code'], ['x'.repeat(50)]), `Item code "${'x'.repeat(40)}…"`);
});

test('records without a key count by their page: the same run of them again is a repeat, hashed at any depth', () => {
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let level = 0; level < 5000; level += 1) deep = { a: deep };
  const keyless = [{ id: null, history: deep }, { name: 'no id at all' }, { id: { nested: 1 }, name: 'an id that is no scalar' }];
  const repeats = new RepeatedRecords(['id']);
  assert.equal(repeats.fresh(keyless, stop).length, 3);
  assert.equal(repeats.fresh([{ id: null, other: deep }], stop).length, 1, 'another run of records without a key is new');
  assert.deepEqual(ids(repeats.fresh([...keyless, ...records(1, 2, 3, 4)], stop)), [1, 2, 3, 4]);
  assert.deepEqual(repeats.fresh(keyless, stop), []);
  assert.throws(() => repeats.fresh(keyless, stop), stoppedWith({ key: undefined, repeated: 3, count: 3 }));
});

test('the keys of the latest generations are kept, older ones forgotten, so a long read holds a bounded set', () => {
  const repeats = new RepeatedRecords(['id']);
  const page = (from: number, size: number) => Array.from({ length: size }, (_, index) => ({ id: from + index }));
  for (let from = 0; from < 2 * KEYS_PER_GENERATION + 1; from += 10_000) repeats.fresh(page(from, 10_000), stop);
  assert.deepEqual(ids(repeats.fresh([{ id: 0 }, { id: 2 * KEYS_PER_GENERATION + 5_000 }], stop)), [0]);
});
