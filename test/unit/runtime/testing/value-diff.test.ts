/** The expected/actual diff under a failed case: only the lines that differ are marked. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDiff, valueDiff } from '../../../../runtime/testing/value-diff.js';

test('records: unchanged lines once, changed lines as - and +, in the expectation’s field order', () => {
  const lines = formatDiff(valueDiff({ a: 1, b: 'x', c: true }, { c: true, b: 'y', a: 1 }));
  assert.deepEqual(lines, ['  {', '    "a": 1,', '-   "b": "x",', '+   "b": "y",', '    "c": true', '  }']);
});

test('a field the actual value adds at the end does not mark the line before it as changed', () => {
  const lines = formatDiff(valueDiff({ a: 1, b: 2 }, { a: 1, b: 2, c: 3 }));
  assert.deepEqual(lines, ['  {', '    "a": 1,', '    "b": 2,', '+   "c": 3', '  }']);
});

test('scalars: one line each', () => {
  assert.deepEqual(formatDiff(valueDiff('boom', 'bang')), ['- "boom"', '+ "bang"']);
  assert.deepEqual(formatDiff(valueDiff({ a: 1 }, undefined)), ['- {"a":1}', '+ nothing']);
});
