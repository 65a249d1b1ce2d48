/**
 * The seed's webhook secret: sent in the header `service_webhooksecret` or in `Authorization`
 * (as `Bearer <secret>` or the bare value). No secret stored: no check.
 *
 * Every form the caller may have used is compared, each in constant time, so the answer's timing
 * does not tell which header was looked at or how close a guess came.
 */
import { anyConstantTimeEqual } from './constant-time.js';
import type { WebhookRequest } from './webhook-call.js';

/** Header names of the secret, lower-case as Node gives them. */
export const secretHeaderNames = ['service_webhooksecret', 'authorization'] as const;

export function secretMatches(secret: string | undefined, headers: WebhookRequest['headers']): boolean {
  if (secret === undefined) return true;
  const candidates: string[] = [];
  const direct = first(headers.service_webhooksecret);
  if (direct !== undefined) candidates.push(direct);
  const authorization = first(headers.authorization);
  if (authorization !== undefined) {
    candidates.push(authorization);
    const bearer = /^Bearer[ \t]+(.+?)[ \t]*$/i.exec(authorization);
    if (bearer) candidates.push(bearer[1]!);
  }
  return candidates.length > 0 && anyConstantTimeEqual(candidates, secret);
}

/** The first value of a header that was sent more than once. */
export function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
