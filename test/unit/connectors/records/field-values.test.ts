/**
 * Whether two canonical values of one field are the same value: scalars by their text (7 and '7'
 * for an Integer), objects and arrays by their content, whatever the order of their properties.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkFieldValue, decodeValue, sameFieldValue } from '../../../../connectors/records/field-values.js';

test('scalars are the same when their text is', () => {
  assert.ok(sameFieldValue(7, '7'));
  assert.ok(sameFieldValue(true, 'true'));
  assert.ok(!sameFieldValue(7, 8));
  assert.ok(!sameFieldValue(null, 'null'), 'null is no text');
  assert.ok(sameFieldValue(null, undefined) === false && sameFieldValue(null, null));
});

test('objects and arrays are the same only when their content is', () => {
  assert.ok(sameFieldValue({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }), 'properties in any order');
  assert.ok(!sameFieldValue({ a: 1 }, { a: 2 }));
  assert.ok(!sameFieldValue({ a: 1 }, { b: 1 }));
  assert.ok(!sameFieldValue({}, { a: null }));
  assert.ok(!sameFieldValue([1, 2], [2, 1]), 'arrays in order');
  assert.ok(!sameFieldValue([1, 2], '1,2'), 'an array is not its text');
  assert.ok(!sameFieldValue({ a: 1 }, '[object Object]'));
  assert.ok(!sameFieldValue([], {}));
  assert.ok(sameFieldValue(new Date('2024-01-05T10:00:00Z'), '2024-01-05T10:00:00.000Z'), 'a Date as the ISO text records carry');
});

test('Number: a value a double cannot hold exactly stays exact text, read and written; others are numbers', () => {
  const target = { label: 'Ledger.amount' };
  for (const exact of [
    '12345678901234567890.1234567891',
    '1234567890123.4567',
    '9007199254740993',
    '-0.000000000000000000001234567890123456789',
  ]) {
    assert.equal(decodeValue('Number', exact), exact, `read ${exact}`);
    assert.equal(checkFieldValue('Number', exact, target), exact, `written ${exact}`);
  }
  assert.equal(decodeValue('Number', 9007199254740993n), '9007199254740993');
  for (const [text, number] of [
    ['0.1', 0.1],
    ['1.50', 1.5],
    ['12345678901234.5', 12345678901234.5],
    ['1234567890123.4500000', 1234567890123.45],
    [' 7 ', 7],
  ] as const) {
    assert.equal(decodeValue('Number', text), number, `read ${text}`);
    assert.equal(checkFieldValue('Number', text, target), number, `written ${text}`);
  }
  assert.equal(checkFieldValue('Number', 2.5, target), 2.5);
  assert.throws(() => checkFieldValue('Number', 'twelve', target), /Ledger\.amount: expected a number/);
  assert.throws(() => checkFieldValue('Number', '1e400', target), /expected a number/, 'not finite');
});
