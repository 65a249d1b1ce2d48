/**
 * The comparison `syncline test` uses: every difference found with its path, and the rules for
 * numbers, dates, missing fields and ignored paths that docs/testing.md promises.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeDifference, differences, matches, showPath, withoutPaths } from '../../../../runtime/testing/compare-expected.js';

describe('differences', () => {
  test('equal values have none, whatever the order of fields', () => {
    assert.deepEqual(differences({ a: 1, b: { c: [1, 'x', null] } }, { b: { c: [1, 'x', null] }, a: 1 }), []);
  });

  test('a changed, a missing and an unexpected field, each with its path', () => {
    const found = differences({ name: 'Ada', city: 'London', tags: ['a', 'b'] }, { name: 'Ada L.', tags: ['a', 'c', 'd'], extra: true });
    assert.deepEqual(found, [
      { path: ['name'], kind: 'changed', expected: 'Ada', actual: 'Ada L.' },
      { path: ['city'], kind: 'missing', expected: 'London' },
      { path: ['tags', 1], kind: 'changed', expected: 'b', actual: 'c' },
      { path: ['tags', 2], kind: 'unexpected', actual: 'd' },
      { path: ['extra'], kind: 'unexpected', actual: true },
    ]);
  });

  test('null is a value: a field holding null is not a field left out', () => {
    assert.deepEqual(differences({ City: null }, {}), [{ path: ['City'], kind: 'missing', expected: null }]);
    assert.deepEqual(differences({}, { City: null }), [{ path: ['City'], kind: 'unexpected', actual: null }]);
    // JSONata leaves out a field whose value is missing; a property holding undefined is not there.
    assert.deepEqual(differences({}, { City: undefined }), []);
  });

  test('numbers match up to floating-point rounding, but not text that reads as one', () => {
    assert.ok(matches(0.3, 0.1 + 0.2));
    assert.ok(!matches(1e15, 1e15 + 1), 'the tolerance is rounding, not a margin');
    assert.ok(!matches(0.3, 0.31));
    assert.ok(!matches(1, 2));
    assert.ok(!matches(42, '42'));
    assert.ok(!matches(Number.NaN, 0));
  });

  test('dates and date-times match when they are the same instant', () => {
    assert.ok(matches('2024-05-01T10:00:00Z', '2024-05-01T10:00:00.000Z'));
    assert.ok(matches('2024-05-01T12:00:00+02:00', new Date('2024-05-01T10:00:00Z')));
    assert.ok(matches('2024-05-01', '2024-05-01T00:00:00.000Z'), 'a date alone is midnight UTC');
    assert.ok(!matches('2024-05-01T10:00:00Z', '2024-05-01T10:00:01Z'));
    assert.ok(!matches('2024-05-01', 'May 1st'));
  });

  test('shapes that differ are one change at that path', () => {
    assert.deepEqual(differences({ a: { b: 1 } }, { a: [1] }), [{ path: ['a'], kind: 'changed', expected: { b: 1 }, actual: [1] }]);
    assert.deepEqual(differences([1], { 0: 1 }), [{ path: [], kind: 'changed', expected: [1], actual: { 0: 1 } }]);
  });

  test('ignored paths are left out, written with dots or brackets', () => {
    const expected = { id: 1, lines: [{ sku: 'a' }] };
    const actual = { id: 1, SyncedAt: 'now', lines: [{ sku: 'a', at: 'now' }] };
    assert.equal(differences(expected, actual).length, 2);
    assert.deepEqual(differences(expected, actual, { ignore: ['SyncedAt', 'lines[0].at'] }), []);
    assert.deepEqual(differences(expected, actual, { ignore: ['SyncedAt', 'lines.0.at'] }), []);
    assert.deepEqual(withoutPaths(actual, ['SyncedAt', 'lines[0].at']), expected);
  });
});

describe('messages', () => {
  test('a difference in one line, with the type named when only the type differs', () => {
    const [changed] = differences({ n: 42 }, { n: '42' });
    assert.equal(describeDifference(changed!), 'n: expected 42 (a number), got "42" (text)');
    const [missing] = differences({ a: { b: 'x' } }, { a: {} });
    assert.equal(describeDifference(missing!), 'a.b: expected "x", but there is no a.b');
    const [extra] = differences({ list: [] }, { list: [{ id: 1 }] });
    assert.equal(describeDifference(extra!), 'list[0]: not expected, but there is {"id":1}');
  });

  test('paths read as in YAML', () => {
    assert.equal(showPath(['lines', 0, 'sku']), 'lines[0].sku');
    assert.equal(showPath([]), '(the whole value)');
  });
});
