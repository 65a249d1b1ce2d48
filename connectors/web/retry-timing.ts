/**
 * How long to wait before trying a request again: what the server asked for in `Retry-After`, or
 * else a backoff that doubles from `retryBackoffMs` per retry and is spread by ±20% at random.
 * The spread keeps requests that failed together (every read of a system that went down) from
 * coming back at the same moment; ±20% rather than "anywhere from 0" keeps the wait close to
 * what it says, as the queue's retries do (runtime/queue/retry.ts).
 */

/** Wait before the first retry when the server names none; doubled for each further one. */
export const retryBackoffMs = 500;

/** The random spread of a backoff, as a fraction of it. */
export const retryJitter = 0.2;

/**
 * The backoff before retry number `retry` (1 = the first): retryBackoffMs · 2^(retry−1) ·
 * (1 ± retryJitter). `random` is a number in [0, 1), Math.random's.
 */
export function backoffDelayMs(retry: number, random: number = Math.random()): number {
  const doubled = retryBackoffMs * 2 ** Math.max(0, retry - 1);
  return Math.round(doubled * (1 - retryJitter + 2 * retryJitter * random));
}

/**
 * Milliseconds a `Retry-After` value asks to wait (RFC 9110 §10.2.3): delay-seconds, or an
 * HTTP-date (a date already past means now). Undefined when absent or not either form.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date names its weekday and month in letters; Date.parse would also take "12" or "2025".
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
