/**
 * What discover guesses from a sample: types that every sampled value agrees on (else String),
 * nullable when a value is empty or missing, keys named like keys with unique values, and files
 * whose names differ only in their numbers grouped under one glob.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupFiles } from '../../../../connectors/file/discover.js';
import { guessKey, inferField } from '../../../../connectors/file/infer-types.js';

test('CSV text is typed by what every value spells', () => {
  const type = (...cells: Array<string | null>) => inferField(cells, false).type;
  assert.equal(type('1', '-2', '30'), 'Integer');
  assert.equal(type('1', '2.5', '-3e2'), 'Number');
  assert.equal(type('02139', '22202'), 'String', 'a leading zero is kept: a zip code is text');
  assert.equal(type('+5', '5'), 'String');
  assert.equal(type('true', 'FALSE', 'True'), 'Boolean');
  assert.equal(type('1', '0', '1'), 'Integer', '1 and 0 are numbers before they are booleans');
  assert.equal(type('2024-01-31', '1999-12-01'), 'Date');
  assert.equal(type('2024-02-30'), 'String', 'an impossible day is no date');
  assert.equal(type('2024-01-31T10:00:00Z', '2024-01-31 10:00:00.123+01:00'), 'DateTime');
  assert.equal(type('{"a":1}', '[1,2]'), 'Json');
  assert.equal(type('1', 'x'), 'String');
  assert.equal(type('9007199254740993'), 'Number', 'too large for an exact integer');
});

test('empty and null values make a field nullable and say nothing of its type', () => {
  assert.deepEqual(inferField(['1', null, '', '3'], false), { type: 'Integer', nullable: true });
  assert.deepEqual(inferField(['1', '3'], false), { type: 'Integer', nullable: false });
  const none = inferField([null, ''], false);
  assert.equal(none.type, 'String');
  assert.equal(none.nullable, true);
  assert.match(none.note!, /no value in the sample/);
});

test('JSON values keep their own types; strings are looked at for dates only', () => {
  const type = (...values: unknown[]) => inferField(values, true).type;
  assert.equal(type(1, 2, null), 'Integer');
  assert.equal(type(1, 2.5), 'Number');
  assert.equal(type(true, false), 'Boolean');
  assert.equal(type('2024-01-31'), 'Date');
  assert.equal(type('2024-01-31T10:00:00.000Z'), 'DateTime');
  assert.equal(type('7', '8'), 'String', 'numbers in quotes stay text');
  assert.equal(type({ a: 1 }, [1]), 'Json');
  assert.equal(inferField([1, undefined], true).nullable, true, 'a missing key is a null');
  const mixed = inferField([1, 'x'], true);
  assert.equal(mixed.type, 'String');
  assert.match(mixed.note!, /several kinds/);
});

test('a key is a field named id, else the first key-like name with unique values present in every row', () => {
  const samples: Record<string, unknown[]> = {
    ID: [1, 2, 3],
    AccountNumber: ['A-1', 'a-1', "A-'2"],
    order_no: [1, 1, 2],
    CustomerId: [5, 6, null],
    Casino: ['a', 'b', 'c'],
    code: ['x', 'y', 'z'],
  };
  const sample = (field: string) => samples[field]!;
  assert.deepEqual(guessKey(['name', 'ID'], sample), ['ID']);
  assert.deepEqual(guessKey(['Casino', 'order_no', 'CustomerId', 'AccountNumber'], sample), ['AccountNumber']);
  assert.deepEqual(guessKey(['Casino', 'code'], sample), [], "a bare 'code' is not named like a key of something");
  assert.deepEqual(guessKey(['Casino'], sample), []);
});

test('files differing only in their numbers are one glob; others stay single', () => {
  assert.deepEqual(groupFiles(['accounts.csv', 'inbox/orders-2024-01.csv', 'inbox/orders-2024-02.csv', 'report1.json']), [
    { path: 'accounts.csv', files: ['accounts.csv'] },
    { path: 'inbox/orders-*-*.csv', files: ['inbox/orders-2024-01.csv', 'inbox/orders-2024-02.csv'] },
    { path: 'report1.json', files: ['report1.json'] },
  ]);
});
