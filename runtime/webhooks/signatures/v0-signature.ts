/**
 * Slack and Zoom sign the same way: `v0=<hex HMAC-SHA256 of "v0:<timestamp>:<body>">`, with the
 * timestamp (Unix seconds) in its own header. Slack: X-Slack-Signature and
 * X-Slack-Request-Timestamp; Zoom: x-zm-signature and x-zm-request-timestamp.
 */
import type { WebhookRequest } from '../webhook-call.js';
import { first } from '../webhook-secret.js';
import { hmac, signatureEquals, timestampProblem, type SignatureFailure } from './signed-parts.js';

interface V0Headers {
  signature: string;
  timestamp: string;
}

export const slackHeaders: V0Headers = { signature: 'x-slack-signature', timestamp: 'x-slack-request-timestamp' };
export const zoomHeaders: V0Headers = { signature: 'x-zm-signature', timestamp: 'x-zm-request-timestamp' };

export function verifyV0(
  headers: V0Headers,
  secret: string,
  request: WebhookRequest,
  toleranceMs: number,
  nowMs: number,
): SignatureFailure | undefined {
  const signature = first(request.headers[headers.signature]);
  if (signature === undefined) return `the ${headers.signature} header is missing`;
  if (!signature.startsWith('v0=')) return `the ${headers.signature} header does not start with v0=`;
  const timestamp = first(request.headers[headers.timestamp]);
  const stale = timestampProblem(timestamp, toleranceMs, nowMs);
  if (stale) return stale;
  const expected = hmac('sha256', secret, [`v0:${timestamp!.trim()}:`, request.rawBody]);
  return signatureEquals(signature.slice(3), 'hex', expected) ? undefined : 'the signature does not match the body';
}
