/**
 * Errors an item keeps are bounded in size as in number: a message or source id past its limit is
 * cut, saying how much was, and never between the halves of a surrogate pair (PostgreSQL's jsonb
 * refuses a lone one, which would fail the item's completion).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendErrors, clipped, maxErrorMessageLength, maxErrorSourceIdLength } from '../../../../runtime/queue/complete.js';

const now = new Date('2030-01-01T00:00:00Z');

test('a long message and source id are cut, saying how many characters were left out; short ones are kept whole', () => {
  const earlier = [{ message: 'before', at: '2029-12-31T00:00:00.000Z' }];
  const [kept, long] = appendErrors(earlier, [{ message: 'm'.repeat(2_000_000), sourceId: 'k'.repeat(2_000_000) }], now).slice(0);
  assert.deepEqual(kept, earlier[0]);
  assert.equal(long!.message, `${'m'.repeat(maxErrorMessageLength)}… (${2_000_000 - maxErrorMessageLength} more characters)`);
  assert.equal(long!.sourceId, `${'k'.repeat(maxErrorSourceIdLength)}… (${2_000_000 - maxErrorSourceIdLength} more characters)`);
  const [short] = appendErrors([], [{ message: 'x'.repeat(maxErrorMessageLength), sourceId: '7' }], now);
  assert.deepEqual(short, { message: 'x'.repeat(maxErrorMessageLength), sourceId: '7', at: now.toISOString() });
});

test('a cut never splits a surrogate pair', () => {
  const text = `${'a'.repeat(9)}😀${'b'.repeat(10)}`;
  assert.equal(clipped(text, 10), `${'a'.repeat(9)}… (12 more characters)`);
  assert.equal(clipped(text, 11), `${'a'.repeat(9)}😀… (10 more characters)`);
  assert.ok(JSON.stringify(clipped(text, 10)).includes('\\ud83d') === false);
});
