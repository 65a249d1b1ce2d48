/**
 * What every signature profile shares: an HMAC over the parts a network signs, the comparison of
 * the presented signature with it, and the age check of a signed timestamp (replay protection).
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../constant-time.js';

/** Why a signature was refused (for the ticker and the 401's detail; never the expected value). */
export type SignatureFailure = string;

export function hmac(algorithm: 'sha256' | 'sha512' | 'sha1', secret: string, parts: readonly (string | Buffer)[]): Buffer {
  const mac = createHmac(algorithm, secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Whether a presented signature (text in `encoding`) equals `expected`. A presented value that is
 * not exactly the encoding of what it decodes to never matches — the decoder skips what it cannot
 * read (an odd last hex digit, base64 past its padding), so a valid signature with a character
 * added would otherwise pass too; it is still compared, so timing is the same either way. Hex is
 * read in either case, base64 with or without its padding.
 */
export function signatureEquals(presented: string, encoding: 'hex' | 'base64', expected: Buffer): boolean {
  const text = presented.trim();
  const decoded = Buffer.from(text, encoding);
  const canonical = decoded.toString(encoding);
  const clean = encoding === 'hex' ? canonical === text.toLowerCase() : canonical === text || canonical.replace(/=+$/, '') === text;
  return constantTimeEqual(decoded, expected) && clean && decoded.length > 0;
}

/**
 * Refusal reason when a signed Unix timestamp (seconds) is not a number or further than
 * `toleranceMs` from now in either direction (a clock a little ahead is normal, a day is not).
 */
export function timestampProblem(text: string | undefined, toleranceMs: number, nowMs: number): SignatureFailure | undefined {
  if (text === undefined || text.trim() === '') return 'the signing timestamp is missing';
  if (!/^\d{1,12}$/.test(text.trim())) return 'the signing timestamp is not a Unix time in seconds';
  const ageMs = Math.abs(nowMs - Number(text.trim()) * 1000);
  if (ageMs > toleranceMs)
    return `the signing timestamp is ${Math.round(ageMs / 1000)} s away from now, more than the tolerance of ${Math.round(toleranceMs / 1000)} s (a replayed or delayed request)`;
  return undefined;
}
