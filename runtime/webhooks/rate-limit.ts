/**
 * The per-webhook rate limit (`rateLimit: {requests, per}`), counted in this process only: with
 * several processes behind a balancer each allows `requests` per window, so the cluster allows
 * that many times more. Good enough to stop a runaway sender without a database write per call
 * (which is what a flood would otherwise cost).
 *
 * The algorithm is GCRA (a leaky bucket kept as one time per webhook): calls are spaced
 * `per / requests` apart, and up to `requests` may come at once. The state is one number per
 * webhook, so memory stays bounded by the number of webhooks; entries of webhooks that a reload
 * removed go once they are idle.
 */
import { parseDuration } from '../../definitions/duration.js';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Per webhook id: the theoretical arrival time of the next call, in ms. */
const nextArrival = new Map<string, number>();
const sweepAbove = 10_000;

export function takeRateLimit(webhookId: string, limit: { requests: number; per: string }, nowMs = Date.now()): RateDecision {
  const windowMs = parseDuration(limit.per) ?? 60_000;
  const spacingMs = windowMs / limit.requests;
  const arrival = Math.max(nextArrival.get(webhookId) ?? nowMs, nowMs);
  const waitMs = arrival - nowMs - (windowMs - spacingMs);
  if (waitMs > 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  if (nextArrival.size >= sweepAbove) sweep(nowMs);
  nextArrival.set(webhookId, arrival + spacingMs);
  return { allowed: true };
}

/** Drops webhooks whose bucket has drained: for them a missing entry means the same. */
function sweep(nowMs: number): void {
  for (const [id, arrival] of nextArrival) if (arrival <= nowMs) nextArrival.delete(id);
}
