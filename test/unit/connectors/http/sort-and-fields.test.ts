/**
 * The sort parameters of an order (only when the declared fields give all of it, with the key
 * breaking ties) and the fields discover proposes from sample records.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SortMapping } from '../../../../connectors/http/http-object.js';
import { inferFields } from '../../../../connectors/http/infer-fields.js';
import { sortParameters } from '../../../../connectors/http/sort-mapping.js';
import { parseOrder } from '../../../../definitions/order/parse-order.js';

const jsonServer: SortMapping = {
  param: '_sort',
  fields: new Set(['id', 'name', 'created']),
  directionParam: '_order',
  descendingPrefix: undefined,
  ascending: 'asc',
  descending: 'desc',
  separator: ',',
};
const prefixed: SortMapping = { ...jsonServer, param: 'sort', directionParam: undefined, descendingPrefix: '-' };

test('an order the declared fields cover is sent, the key appended to break ties', () => {
  assert.deepEqual(sortParameters(jsonServer, parseOrder('name desc'), ['id']), { _sort: 'name,id', _order: 'desc,asc' });
  assert.deepEqual(sortParameters(jsonServer, parseOrder('id desc'), ['id']), { _sort: 'id', _order: 'desc' });
  assert.deepEqual(sortParameters(prefixed, parseOrder('created desc, name'), ['id']), { sort: '-created,name,id' });
});

test('an order the API cannot be told is left to memory', () => {
  assert.equal(sortParameters(jsonServer, parseOrder('email'), ['id']), undefined);
  assert.equal(sortParameters(jsonServer, parseOrder('name'), ['number']), undefined, 'the key is not sortable');
  assert.equal(sortParameters(jsonServer, parseOrder('addresses.main.city'), ['id']), undefined);
  assert.equal(sortParameters({ ...jsonServer, directionParam: undefined }, parseOrder('name desc'), ['id']), undefined);
  assert.equal(sortParameters(undefined, parseOrder('name'), ['id']), undefined);
  assert.equal(sortParameters(jsonServer, [], ['id']), undefined);
});

test('fields are proposed in the order they appear, typed by the values they share', () => {
  const { fields, notes } = inferFields([
    { id: 1, name: 'Ada', score: 1, ratio: 1, born: '1990-05-17', seen: '2024-01-02T03:04:05Z', on: true, meta: { a: 1 }, nothing: null },
    { id: 2, name: 'Bo', score: 2, ratio: 1.5, born: null, seen: '2024-01-02', on: false, meta: [1], mixed: 1 },
    {
      id: 3,
      name: '2024-01-01',
      score: 3,
      ratio: 2,
      born: '1991-02-28',
      seen: '2024-01-02 03:04',
      on: true,
      meta: null,
      mixed: 'x',
      'bad name': 1,
    },
  ]);
  assert.deepEqual(
    fields.map((field) => [field.name, field.type, field.nullable]),
    [
      ['id', 'Integer', false],
      ['name', 'String', false],
      ['score', 'Integer', false],
      ['ratio', 'Number', false],
      ['born', 'Date', true],
      ['seen', 'DateTime', false],
      ['on', 'Boolean', false],
      ['meta', 'Json', true],
      ['nothing', 'String', true],
      ['mixed', 'String', true],
    ],
  );
  assert.deepEqual(notes, [
    'nothing: only null was seen; String is a guess',
    'mixed: values of several kinds (integer, string) were seen; String is a guess',
    "'bad name' is left out: a field name is letters, digits and '_', not starting with a digit",
  ]);
  assert.deepEqual(
    inferFields([{ a: 1, addresses: { main: {} } }], new Set(['addresses'])).fields.map((field) => field.name),
    ['a'],
  );
  assert.deepEqual(inferFields([{ d: '2024-02-30' }]).fields[0]!.type, 'String', 'not a day of the calendar');
});
