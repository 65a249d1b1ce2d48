/**
 * `rateLimit: {requests, per}` of one client: requests are spaced `per / requests` apart, and up
 * to `requests` may go at once after a quiet spell. The algorithm is GCRA, as the webhooks' own
 * rate limit (runtime/webhooks/rate-limit.ts), but here a request over the limit waits for its
 * turn instead of being refused: each caller reserves the next free slot when it asks, so callers
 * go in the order they asked and none has to poll.
 */
import { wait } from './abort-timing.js';

export class RequestRate {
  private readonly spacingMs: number;
  private readonly burstMs: number;
  /** When the slot after the last reserved one comes (GCRA's theoretical arrival time). */
  private nextSlotMs = Number.NEGATIVE_INFINITY;

  constructor(
    limit: { requests: number; perMs: number },
    private readonly now: () => number = () => performance.now(),
  ) {
    this.spacingMs = limit.perMs / limit.requests;
    this.burstMs = limit.perMs - this.spacingMs;
  }

  /** Milliseconds until the slot reserved now may be used (0: at once). */
  reserve(): number {
    const now = this.now();
    const slot = Math.max(this.nextSlotMs, now);
    this.nextSlotMs = slot + this.spacingMs;
    return Math.max(0, slot - this.burstMs - now);
  }

  /**
   * Waits for a slot. An abort rejects with the caller's reason; its slot is handed back when no
   * later one was reserved since, else it goes unused — which only ever sends fewer requests.
   */
  async take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const waitMs = this.reserve();
    if (waitMs === 0) return;
    const reservedUpTo = this.nextSlotMs;
    try {
      await wait(waitMs, signal);
    } catch (error) {
      if (this.nextSlotMs === reservedUpTo) this.nextSlotMs -= this.spacingMs;
      throw error;
    }
  }
}
