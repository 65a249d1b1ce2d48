/** When a daemon's claim loop counts as stuck for /healthz, and when it never does. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimLoopLiveness, stuckAfterMs } from '../../../../runtime/daemon/daemon-liveness.js';

const loop = (tickedAt: number, more: { stopping?: boolean; failure?: unknown; pollIntervalMs?: number } = {}) => ({
  tickedAt,
  pollIntervalMs: more.pollIntervalMs ?? 1000,
  stopping: more.stopping ?? false,
  failure: more.failure,
});

test('alive while the loop went round within the limit, stuck after it', () => {
  const now = 1_000_000_000;
  const limit = stuckAfterMs(1000);
  assert.equal(limit, 120_000, 'two minutes: longer than an acquire timeout and the longest error pause together');
  assert.deepEqual(claimLoopLiveness(loop(now - 1000), now), { ok: true });
  assert.deepEqual(claimLoopLiveness(loop(now - limit), now), { ok: true });
  const stuck = claimLoopLiveness(loop(now - limit - 1000), now);
  assert.equal(stuck.ok, false);
  assert.match(stuck.ok ? '' : stuck.reason, /has not gone round for 121 s \(limit 120 s\)/);
});

test('a long poll interval lengthens the limit', () => {
  assert.equal(stuckAfterMs(60_000), 60_000 + 30_000 + 180_000);
  const now = 5_000_000;
  assert.deepEqual(claimLoopLiveness(loop(now - 200_000, { pollIntervalMs: 60_000 }), now), { ok: true });
});

test('a stopping loop is alive; one that ended on an error is not, however recent', () => {
  const now = 1_000_000_000;
  assert.deepEqual(claimLoopLiveness(loop(0, { stopping: true }), now), { ok: true });
  const failed = claimLoopLiveness(loop(now, { failure: new Error('bug') }), now);
  assert.equal(failed.ok, false);
});
