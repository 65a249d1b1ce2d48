/**
 * Whether two canonical values of one field are the same value: scalars by their text (7 and '7'
 * for an Integer), objects and arrays by their content, whatever the order of their properties;
 * and how whole numbers are read, safe ones as numbers and the rest as canonical text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isWideIntegerText, parseExactJson } from '../../../../connectors/records/exact-json.js';
import {
  checkFieldValue,
  decodeValue,
  decoderFor,
  type FieldTarget,
  sameFieldValue,
  wholeNumberText,
} from '../../../../connectors/records/field-values.js';
import { int64Text } from '../../../../connectors/sql/engines/engine.js';

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
  assert.throws(() => checkFieldValue('Number', '1.2.3', target), /expected a number/);
  assert.throws(() => checkFieldValue('Number', '', target), /expected a number/);
  assert.throws(
    () => checkFieldValue('Number', Number.POSITIVE_INFINITY, target),
    /expected a number, got Infinity \(no number a system stores\)/,
    'a double that is not finite, said so rather than "got a number"',
  );
  assert.throws(() => checkFieldValue('Number', Number.NaN, target), /expected a number, got NaN/);
  assert.throws(() => checkFieldValue('Number', true, target), /expected a number/);
  assert.equal(decodeValue('Number', 'twelve'), 'twelve', 'no number: passed on as it came');
});

test('Number: exact text has one spelling per value, so the same value read from two databases is no change', () => {
  const target = { label: 'Ledger.amount' };
  for (const [text, canonical] of [
    // PostgreSQL numeric(30,10) pads to its scale; MariaDB decimal(30,4) to its own.
    ['1234567890123.4567000000', '1234567890123.4567'],
    ['12345678901234567890.1234567891', '12345678901234567890.1234567891'],
    ['+0012345678901234567890.1234567891000', '12345678901234567890.1234567891'],
    [' -9007199254740993.000 ', '-9007199254740993'],
    ['12345678901234567890.1234567891e3', '12345678901234567890123.4567891'],
    ['1.2345678901234567890123e-5', '0.000012345678901234567890123'],
    // Past a double's range: Infinity and 0 would be wrong, so the decimal stays text.
    ['1e400', '1e400'],
    ['-1.50E+400', '-1.5e400'],
    ['1e-400', '1e-400'],
    ['1.234567e-320', '1.234567e-320'],
    ['9'.repeat(20) + '0'.repeat(100), '9.9999999999999999999e119'],
  ] as const) {
    assert.equal(decodeValue('Number', text), canonical, `read ${text}`);
    assert.equal(checkFieldValue('Number', text, target), canonical, `written ${text}`);
  }
  assert.ok(sameFieldValue(decodeValue('Number', '1234567890123.4567000000'), checkFieldValue('Number', '1234567890123.4567', target)));
  assert.ok(!sameFieldValue(decodeValue('Number', '1234567890123.4567'), decodeValue('Number', '1234567890123.4568')));
  // Values a double holds are numbers, whatever their spelling: arithmetic in mappings is unchanged.
  for (const [text, number] of [
    ['-0.000000000000000000001', -1e-21],
    ['1e21', 1e21],
    ['1.5e-7', 1.5e-7],
    ['-0', -0],
    ['000000000000000000000.5', 0.5],
    ['12345678901234.568', 12345678901234.568],
    ['9007199254740992', 9007199254740992],
    ['5e-324', 5e-324],
  ] as const) {
    assert.equal(decodeValue('Number', text), number, `read ${text}`);
    assert.equal(checkFieldValue('Number', text, target), number, `written ${text}`);
  }
  assert.equal(decodeValue('Number', 12345678901234567000), 12345678901234567000, 'a double read stays the double');
  assert.equal(decodeValue('Number', 2n ** 64n), '18446744073709551616');
  // A double holds 2^60, but prints (and a driver binds) it as 1152921504606847000: text it stays.
  assert.equal(decodeValue('Number', 2n ** 60n), '1152921504606846976');
  assert.equal(decodeValue('Number', 2n ** 50n), 2 ** 50);
});

test('Integer: a whole number is read as a number while safe, else as its canonical text', () => {
  const decode = decoderFor('Integer');
  const cases: Array<[string, unknown]> = [
    ['9007199254740991', 9007199254740991],
    ['1000000000000000', 1000000000000000],
    ['9007199254740992', '9007199254740992'],
    ['-9007199254740993', '-9007199254740993'],
    ['0009007199254740993', '9007199254740993'],
    ['+12', 12],
    ['-0', 0],
    [' 42 ', 42],
    ['-000', 0],
  ];
  for (const [text, expected] of cases) assert.deepEqual(decode(text), expected, text);
  assert.equal(wholeNumberText('-0000123'), '-123');
  assert.equal(wholeNumberText('12.0'), undefined);
  assert.equal(int64Text('9223372036854775807'), '9223372036854775807');
  assert.equal(int64Text('-9223372036854775809'), undefined);
});

// The timeout only stops a run that would take minutes (BigInt's parse and print were not linear).
test('Integer: one of 20 million digits is read, checked and measured against 64 bits as text', { timeout: 30_000 }, () => {
  const digits = `-${'7'.repeat(20_000_000)}`;
  const [record] = parseExactJson(`[{"id":${digits}}]`) as Array<{ id: unknown }>;
  const read = decoderFor('Integer')(record!.id);
  assert.equal(read, digits);
  assert.equal(checkFieldValue('Integer', read, { label: 'id' } as FieldTarget), digits);
  assert.equal(int64Text(digits), undefined);
  assert.equal(isWideIntegerText(digits), true);
});

test('String: an object is read as its JSON text, and one nested past 1,000 levels as it is, failing only its write', () => {
  const decode = decoderFor('String');
  assert.equal(decode({ a: [1, 'x'] }), '{"a":[1,"x"]}');
  let deep: unknown = 'bottom';
  for (let level = 0; level < 5000; level += 1) deep = { inner: deep };
  const read = decode(deep);
  assert.equal(read, deep);
  assert.throws(
    () => checkFieldValue('String', read, { label: 'Thing.name' } as FieldTarget),
    (error: Error) => /Thing\.name/.test(error.message) && /an object/.test(error.message),
  );
});
