/**
 * How long a retry waits: `Retry-After` in both of its forms (and what is neither), and the
 * backoff without one — doubling per retry, spread by at most ±20%.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelayMs, parseRetryAfter, retryBackoffMs, retryJitter } from '../../../../connectors/web/retry-timing.js';

const now = Date.parse('2025-03-01T12:00:00Z');

test('Retry-After as seconds', () => {
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter('120', now), 120_000);
  assert.equal(parseRetryAfter(' 5 ', now), 5000);
});

test('Retry-After as an HTTP-date, as IMF-fixdate or the obsolete RFC 850 form; a past date means now', () => {
  assert.equal(parseRetryAfter('Sat, 01 Mar 2025 12:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Saturday, 01-Mar-25 12:01:00 GMT', now), 60_000);
  assert.equal(parseRetryAfter('Fri, 28 Feb 2025 12:00:00 GMT', now), 0);
});

test('no Retry-After, or one that is neither form', () => {
  for (const value of [null, undefined, '', '-5', '1.5', 'soon', 'Tomorrow', 'Sat, 99 Foo 2025']) {
    assert.equal(parseRetryAfter(value, now), undefined, String(value));
  }
});

test('the backoff doubles per retry and stays within ±20% of it', () => {
  for (let retry = 1; retry <= 6; retry += 1) {
    const middle = retryBackoffMs * 2 ** (retry - 1);
    assert.equal(backoffDelayMs(retry, 0.5), middle);
    assert.equal(backoffDelayMs(retry, 0), Math.round(middle * (1 - retryJitter)));
    assert.ok(backoffDelayMs(retry, 0.999_999) <= Math.round(middle * (1 + retryJitter)));
    for (let i = 0; i < 50; i += 1) {
      const delay = backoffDelayMs(retry);
      assert.ok(delay >= middle * 0.8 && delay <= middle * 1.2, `${delay} for retry ${retry}`);
    }
  }
});
