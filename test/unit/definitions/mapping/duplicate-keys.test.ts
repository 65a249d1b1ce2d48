import assert from 'node:assert/strict';
import { test } from 'node:test';
import jsonata from 'jsonata';
import { duplicateKeys } from '../../../../definitions/mapping/duplicate-keys.js';

const found = (text: string) =>
  duplicateKeys(jsonata(text).ast(), text).map((key) => [key.name, text.slice(key.start, key.start + key.name.length + 2)]);

test('a literal key given twice in one object constructor, at its second quote, nested and group-by objects too', () => {
  assert.deepEqual(found('{ "a": 1, "b": 2, "a": 3 }'), [['a', '"a"']]);
  assert.deepEqual(found(`{ "outer": { 'x': 1, 'x': 2 } }`), [['x', "'x'"]]);
  assert.deepEqual(found('items{ "k": 1, "k": 2 }'), [['k', '"k"']]);
  assert.deepEqual(found('( $v := 1; { "a": $v, "b": 2, "b": 3, "a": 4 } )'), [
    ['b', '"b"'],
    ['a', '"a"'],
  ]);
});

test('keys given once per object, and computed keys, are left alone', () => {
  assert.deepEqual(found('{ "a": { "a": 1 }, "b": [{ "a": 1 }, { "a": 2 }] }'), []);
  assert.deepEqual(found('{ name: 1, name: 2 }'), []);
  assert.deepEqual(found('{ "a": 1, "A": 2 }'), []);
});

test('what JSONata itself does with such an object: refuses it', async () => {
  await assert.rejects(jsonata('{ "a": 1, "a": 2 }').evaluate({}), { code: 'D1009' });
});
