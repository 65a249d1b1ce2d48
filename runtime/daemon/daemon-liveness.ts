/**
 * Whether a daemon's claim loop is alive, for /healthz: an orchestrator restarts a process whose
 * liveness fails, so it must fail only where a restart helps — a loop that ended or hangs — and
 * never for what a restart cannot mend, such as a runtime database that is down (readiness says
 * that, and the loop outlives it).
 *
 * The loop goes round at least every poll interval while all is well. While the database fails, a
 * round may wait for a connection up to Knex's acquire timeout (60 s) and then pause up to
 * `maxErrorPauseMs` (30 s) before the next: so the loop counts as stuck only after two minutes
 * (or three poll intervals more than that, for a long poll interval) without a round.
 */
import { maxErrorPauseMs, type ClaimLoopState } from './daemon.js';

export type Liveness = { ok: true } | { ok: false; reason: string };

/** The longest time any database statement waits for a pooled connection (Knex's default acquire timeout). */
const acquireTimeoutMs = 60_000;
/** Never less than this without a round before the loop counts as stuck. */
const leastStuckMs = 120_000;

/** How long the loop may go without a round before it counts as stuck. */
export function stuckAfterMs(pollIntervalMs: number): number {
  return Math.max(leastStuckMs, acquireTimeoutMs + maxErrorPauseMs + 3 * pollIntervalMs);
}

/** The loop's liveness at `now` (ms since the epoch). A stopping loop is alive: it ends on purpose. */
export function claimLoopLiveness(loop: ClaimLoopState, now = Date.now()): Liveness {
  if (loop.failure !== undefined) return { ok: false, reason: 'the claim loop of the daemon ended on an unexpected error' };
  if (loop.stopping) return { ok: true };
  const silentMs = now - loop.tickedAt;
  const limitMs = stuckAfterMs(loop.pollIntervalMs);
  if (silentMs > limitMs)
    return {
      ok: false,
      reason: `the claim loop of the daemon has not gone round for ${Math.round(silentMs / 1000)} s (limit ${limitMs / 1000} s)`,
    };
  return { ok: true };
}
