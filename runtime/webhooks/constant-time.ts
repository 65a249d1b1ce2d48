/**
 * Comparing a presented credential with the stored one. Both are hashed first, so
 * timingSafeEqual always compares two 32-byte digests: neither the time taken nor an early length
 * check says how long the secret is or how much of a guess was right.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string | Buffer): Buffer {
  return createHash('sha256').update(value).digest();
}

export function constantTimeEqual(presented: string | Buffer, expected: string | Buffer): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** True when any candidate matches; every candidate is compared (no early exit). */
export function anyConstantTimeEqual(candidates: readonly (string | Buffer)[], expected: string | Buffer): boolean {
  let found = false;
  for (const candidate of candidates) found = constantTimeEqual(candidate, expected) || found;
  return found;
}
