/**
 * The type guesses every connector's discover shares: kinds of JSON values and of CSV text, and
 * the type a field's kinds agree on, String (or Json, with an object among them) when they do not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kindOfText, kindOfValue, typeOfKinds, type ValueKind } from '../../../../connectors/records/infer-field-types.js';

const typeOf = (...kinds: ValueKind[]) => typeOfKinds(new Set(kinds));

test('JSON values are of their own kind; their text only tells dates', () => {
  assert.deepEqual([1, 2.5, 2 ** 53, true, '7', '2024-01-31', '2024-01-31T10:00+01', '2024-02-30', { a: 1 }, []].map(kindOfValue), [
    'integer',
    'number',
    'number',
    'boolean',
    'string',
    'date',
    'datetime',
    'string',
    'json',
    'json',
  ]);
});

test('CSV text is of the kind it spells', () => {
  assert.deepEqual(
    ['7', '07', '-3e2', '9007199254740993', 'TRUE', '2024-01-31', '2024-01-31 10:00:00.123+01:00', '2024-13-01', '[1]', '{x', 'x'].map(
      kindOfText,
    ),
    ['integer', 'string', 'number', 'number', 'boolean', 'date', 'datetime', 'string', 'json-text', 'string', 'string'],
  );
});

test('the type the kinds agree on, a guess when they do not', () => {
  assert.deepEqual(typeOf('integer'), { type: 'Integer', mixed: false });
  assert.deepEqual(typeOf('integer', 'number'), { type: 'Number', mixed: false });
  assert.deepEqual(typeOf('date', 'datetime'), { type: 'DateTime', mixed: false }, 'a date is the start of its day');
  assert.deepEqual(typeOf('string', 'date'), { type: 'String', mixed: false });
  assert.deepEqual(typeOf('json-text'), { type: 'Json', mixed: false });
  assert.deepEqual(typeOf('integer', 'boolean'), { type: 'String', mixed: true });
  assert.deepEqual(typeOf('json', 'integer'), { type: 'Json', mixed: true }, 'Json holds any JSON value');
  assert.deepEqual(typeOf('json-text', 'string'), { type: 'String', mixed: true }, 'a CSV cell that is not JSON stays text');
});
