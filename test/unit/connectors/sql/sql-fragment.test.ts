/**
 * The one number written into SQL text: a row count of LIMIT or OFFSET (sql-fragment.ts rowCount),
 * taken only as a whole number of at least 0; anything else is refused before it reaches a statement.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rowCount, sql, value } from '../../../../connectors/sql/sql-fragment.js';

test('a row count is written as its digits, with no binding', () => {
  assert.deepEqual(sql`select 1 limit ${rowCount(500)} offset ${rowCount(0)}`, { sql: 'select 1 limit 500 offset 0', bindings: [] });
  assert.deepEqual(sql`where a = ${value('500')} limit ${rowCount(9_007_199_254_740_991)}`, {
    sql: 'where a = ? limit 9007199254740991',
    bindings: ['500'],
  });
});

test('anything but a whole number of at least 0 is refused as a row count', () => {
  for (const count of [
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 53,
    '5' as unknown as number,
    '1; drop table t' as unknown as number,
  ]) {
    assert.throws(() => rowCount(count), RangeError, String(count));
  }
});
