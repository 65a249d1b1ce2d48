/**
 * ChangedFields: a write's values against a target record as drivers give it, per field type — a
 * different spelling of the same value is no change, a different value is one, whatever side is
 * text — null against absent, read-only and undeclared fields, and typed group entries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FieldDescription, ObjectDescription } from '../../../../connectors/connection.js';
import type { FieldType } from '../../../../definitions/types.js';
import { ChangedFields, writtenValue } from '../../../../runtime/sync/changed-fields.js';

const field = (name: string, type: FieldType, readOnly = false): FieldDescription => ({ name, type, required: false, readOnly });

const account: ObjectDescription = {
  name: 'Account',
  key: ['id'],
  fields: [
    field('id', 'Integer', true),
    field('name', 'String'),
    field('count', 'Integer'),
    field('amount', 'Number'),
    field('active', 'Boolean'),
    field('born', 'Date'),
    field('seen', 'DateTime'),
    field('extra', 'Json'),
  ],
  groups: [{ name: 'addresses', types: ['main', 'invoice'], fields: [field('city', 'String'), field('zip', 'String')] }],
};
const changed = new ChangedFields(account);

/** The changes of writing `values` over `target`, as field → [old, new]. */
function changes(
  target: Record<string, unknown>,
  values: Record<string, unknown>,
  groups?: Record<string, Record<string, Record<string, unknown>>>,
) {
  const write = { values, ...(groups === undefined ? {} : { groups }) };
  const list = changed.list(target, write);
  assert.equal(changed.any(target, write), list.length > 0, 'any() agrees with list()');
  return Object.fromEntries(list.map((change) => [change.field, [change.old, change.new]]));
}

describe('the same value in another spelling is no change', () => {
  const same: Array<[string, string, unknown, unknown]> = [
    ['Integer from text', 'count', '7', 7],
    ['Integer written as text', 'count', 7, '7'],
    ['Integer as bigint beyond the safe range', 'count', 9007199254740993n, '9007199254740993'],
    ["Number as PostgreSQL's numeric text", 'amount', '12.50', 12.5],
    ['Number written as text', 'amount', 0.1, '0.1'],
    ['Boolean as 1', 'active', 1, true],
    ["Boolean as PostgreSQL's 'f'", 'active', 'f', false],
    ['Date as a Date', 'born', new Date('2024-01-05T00:00:00Z'), '2024-01-05'],
    ['DateTime as a Date', 'seen', new Date('2024-01-05T10:00:00Z'), '2024-01-05T10:00:00Z'],
    ['DateTime written with an offset', 'seen', '2024-01-05T10:00:00.000Z', '2024-01-05T11:00:00+01:00'],
    ['DateTime as text without an offset (UTC)', 'seen', '2024-01-05 10:00:00', '2024-01-05T10:00:00.000Z'],
    ['Json as text, properties in another order', 'extra', '{"b":[1,2],"a":{"y":1,"x":2}}', { a: { x: 2, y: 1 }, b: [1, 2] }],
  ];
  for (const [what, name, old, written] of same) {
    test(what, () => assert.deepEqual(changes({ [name]: old }, { [name]: written }), {}));
  }
});

describe('a different value is a change, old and new in canonical form', () => {
  test('numbers, whichever side is text', () => {
    assert.deepEqual(changes({ count: '7', amount: 12.5 }, { count: 8, amount: '12.51' }), { count: [7, 8], amount: [12.5, 12.51] });
  });
  test('text exactly: case and trailing blanks count', () => {
    assert.deepEqual(changes({ name: 'abc' }, { name: 'ABC' }), { name: ['abc', 'ABC'] });
    assert.deepEqual(changes({ name: 'abc' }, { name: 'abc ' }), { name: ['abc', 'abc '] });
  });
  test('booleans, dates and date-times', () => {
    assert.deepEqual(
      changes(
        { active: 0, born: new Date('2024-01-05T00:00:00Z'), seen: '2024-01-05T10:00:00.000Z' },
        {
          active: 'true',
          born: '2024-01-06',
          seen: '2024-01-05T10:00:00.001Z',
        },
      ),
      {
        active: [false, true],
        born: ['2024-01-05', '2024-01-06'],
        seen: ['2024-01-05T10:00:00.000Z', '2024-01-05T10:00:00.001Z'],
      },
    );
  });
  test('Json by content', () => {
    assert.deepEqual(changes({ extra: { a: 1 } }, { extra: { a: 2 } }), { extra: [{ a: 1 }, { a: 2 }] });
  });
  test('a value that does not fit its type is compared as given', () => {
    assert.deepEqual(changes({ count: 7 }, { count: 'seven' }), { count: [7, 'seven'] });
    assert.equal(writtenValue('Integer', 'seven'), 'seven');
    assert.equal(writtenValue('Integer', '007'), 7);
  });
});

describe('null, absent and undefined', () => {
  test('null over null or over a field the record lacks is no change', () => {
    assert.deepEqual(changes({ name: null }, { name: null }), {});
    assert.deepEqual(changes({}, { name: null, count: null }), {});
  });
  test('null over a value, and a value over null or nothing, are changes', () => {
    assert.deepEqual(changes({ name: 'Ada', count: null }, { name: null, count: 0, amount: 1 }), {
      name: ['Ada', null],
      count: [null, 0],
      amount: [null, 1],
    });
  });
  test('a field written as undefined is not written', () => {
    assert.deepEqual(changes({ name: 'Ada' }, { name: undefined }), {});
  });
});

test('read-only and undeclared fields are not compared', () => {
  assert.deepEqual(changes({ id: 1, name: 'Ada' }, { id: 2, nickname: 'A', name: 'Ada' }), {});
});

describe('typed groups', () => {
  const target = { name: 'Ada', addresses: { main: { city: 'London', zip: 'SW1' } } };
  test('an entry compared field by field', () => {
    assert.deepEqual(changes(target, { name: 'Ada' }, { addresses: { main: { city: 'London', zip: 'SW1' } } }), {});
    assert.deepEqual(changes(target, { name: 'Ada' }, { addresses: { main: { city: 'Paris' } } }), {
      'addresses[main].city': ['London', 'Paris'],
    });
  });
  test('an entry the record lacks is created: its fields change from no entry', () => {
    assert.deepEqual(changes(target, {}, { addresses: { invoice: { city: 'Leeds', zip: null } } }), {
      'addresses[invoice].city': [undefined, 'Leeds'],
      'addresses[invoice].zip': [undefined, null],
    });
    assert.deepEqual(changes({ name: 'Ada' }, {}, { addresses: { main: {} } }), { 'addresses[main]': [undefined, {}] });
  });
  test('a group or type the object does not declare is left to the write checks', () => {
    assert.deepEqual(changes(target, {}, { phones: { main: { number: '1' } }, addresses: { home: { city: 'X' } } }), {});
  });
});

test('any() stops at the first change; the order of list() is the order written', () => {
  const write = { values: { name: 'B', count: 2, amount: 3 } };
  assert.equal(changed.any({ name: 'A', count: 1, amount: 3 }, write), true);
  assert.equal(changed.any({ name: 'B', count: 2, amount: 3 }, write), false);
  assert.deepEqual(
    changed.list({ name: 'A', count: 1, amount: 1 }, write).map((change) => change.field),
    ['name', 'count', 'amount'],
  );
});
