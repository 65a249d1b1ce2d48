/**
 * Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, each v1 an HMAC-SHA256 of
 * `<t>.<body>`. Several v1 values appear while a secret is being rolled; one match is enough.
 */
import type { WebhookRequest } from '../webhook-call.js';
import { first } from '../webhook-secret.js';
import { hmac, signatureEquals, timestampProblem, type SignatureFailure } from './signed-parts.js';

export const stripeHeader = 'stripe-signature';

export function verifyStripe(secret: string, request: WebhookRequest, toleranceMs: number, nowMs: number): SignatureFailure | undefined {
  const header = first(request.headers[stripeHeader]);
  if (header === undefined) return `the ${stripeHeader} header is missing`;
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at < 0) continue;
    const key = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') signatures.push(value);
  }
  if (signatures.length === 0) return `the ${stripeHeader} header has no v1 signature`;
  const stale = timestampProblem(timestamp, toleranceMs, nowMs);
  if (stale) return stale;
  const expected = hmac('sha256', secret, [`${timestamp}.`, request.rawBody]);
  // Every value is compared: which of them matched must not show in the timing.
  let matched = false;
  for (const signature of signatures) matched = signatureEquals(signature, 'hex', expected) || matched;
  return matched ? undefined : 'no v1 signature matches the body';
}
