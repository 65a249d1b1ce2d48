import assert from 'node:assert/strict';
import { test } from 'node:test';
import jsonata from 'jsonata';
import { sourceFieldReads } from '../../../../definitions/mapping/source-fields.js';

const reads = (text: string) =>
  sourceFieldReads(jsonata(text).ast(), text).map((read) => [
    read.path.join('.'),
    text.slice(read.start, read.start + read.path[0]!.length),
  ]);

test('names read in the record’s own context, with where each starts', () => {
  assert.deepEqual(reads('{ "a": name, "b": -amount, "c": [x, y] }'), [
    ['name', 'name'],
    ['amount', 'amount'],
    ['x', 'x'],
    ['y', 'y'],
  ]);
  assert.deepEqual(reads('( $v := first & last; active ? $v : $uppercase(other) )'), [
    ['first', 'first'],
    ['last', 'last'],
    ['active', 'active'],
    ['other', 'other'],
  ]);
  assert.deepEqual(reads('{ "city": addresses.main.city, "n": meta.deep.deeper.deepest }'), [
    ['addresses.main.city', 'addresses'],
    ['meta.deep.deeper', 'meta'],
  ]);
  assert.deepEqual(reads('`unit price` * 2'), [['unit price', '`unit pric']], 'a quoted name starts at its quote');
});

test('what another context reads is left alone: later steps, predicates, lambdas, group-by objects, $', () => {
  assert.deepEqual(reads('items[price > 5].name'), [['items', 'items']]);
  assert.deepEqual(reads('$map(items, function($i) { $i.price * qty })'), [['items', 'items']]);
  assert.deepEqual(reads('lines{ sku: $sum(qty) }'), [['lines', 'lines']]);
  assert.deepEqual(reads('$.name'), []);
  assert.deepEqual(reads('items.{ "p": price }'), [['items', 'items']]);
});
