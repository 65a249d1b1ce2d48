/**
 * The order of field values in memory is a total order, also over values of different kinds (a
 * value that did not decode to its field's type stays as it came): nulls, then booleans, numbers,
 * text, dates and anything else by its JSON text — so a sort gives the same answer whatever order
 * the records came in.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compareForOrder } from '../../../../connectors/records/in-memory-read.js';

const mixed = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.integer({ min: -20, max: 20 }),
  fc.double({ noDefaultInfinity: false }),
  fc.constantFrom('', '10', '9', '2', 'a', 'B', '1e3', 'true', 'null'),
  fc.string({ maxLength: 3 }),
  fc.date({ noInvalidDate: true }),
  fc.constantFrom({ a: 1 }, { a: 2 }, [1, 2], [], {}, ['10']),
);
const sign = (value: number) => Math.sign(value) || 0;

test('kinds in their order, each kind by its own values', () => {
  const sorted = [{ a: 1 }, 'b', 10, true, null, new Date(5), 'a', 9, false, [1], new Date(1), '10', null].sort(compareForOrder);
  assert.deepEqual(sorted, [null, null, false, true, 9, 10, '10', 'a', 'b', new Date(1), new Date(5), [1], { a: 1 }]);
  assert.equal(compareForOrder(undefined, null), 0, 'a missing value is null');
  // Text is not compared with numbers as text: 2 < 10 and '10' < '2' both hold, and 10 < '10'.
  assert.equal(sign(compareForOrder(2, '10')), -1);
  assert.equal(sign(compareForOrder(10, '10')), -1);
  assert.equal(sign(compareForOrder('10', '2')), -1);
  assert.equal(compareForOrder(Number.NaN, Number.NaN), 0);
  assert.equal(sign(compareForOrder(Number.NaN, -1e308)), -1);
});

test('antisymmetric and transitive over mixed values', () => {
  fc.assert(
    fc.property(mixed, mixed, mixed, (a, b, c) => {
      assert.equal(sign(compareForOrder(a, b)), sign(-compareForOrder(b, a)));
      if (compareForOrder(a, b) <= 0 && compareForOrder(b, c) <= 0) assert.ok(compareForOrder(a, c) <= 0, 'a ≤ b ≤ c');
      if (compareForOrder(a, b) === 0) assert.equal(sign(compareForOrder(a, c)), sign(compareForOrder(b, c)), 'equals sort alike');
    }),
    { numRuns: 3000 },
  );
});

test('a sort of mixed values is the same whatever order they came in', () => {
  fc.assert(
    fc.property(
      fc
        .array(mixed, { maxLength: 30 })
        .chain((values) => fc.tuple(fc.constant(values), fc.shuffledSubarray(values, { minLength: values.length }))),
      ([values, shuffled]) => {
        assert.deepEqual(JSON.stringify([...shuffled].sort(compareForOrder)), JSON.stringify([...values].sort(compareForOrder)));
      },
    ),
    { numRuns: 500 },
  );
});
