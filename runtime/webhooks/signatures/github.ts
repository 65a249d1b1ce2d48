/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`. GitHub signs no timestamp. */
import type { WebhookRequest } from '../webhook-call.js';
import { first } from '../webhook-secret.js';
import { hmac, signatureEquals, type SignatureFailure } from './signed-parts.js';

export const githubHeader = 'x-hub-signature-256';

export function verifyGithub(secret: string, request: WebhookRequest): SignatureFailure | undefined {
  const header = first(request.headers[githubHeader]);
  if (header === undefined) return `the ${githubHeader} header is missing`;
  if (!header.startsWith('sha256=')) return `the ${githubHeader} header does not start with sha256=`;
  return signatureEquals(header.slice('sha256='.length), 'hex', hmac('sha256', secret, [request.rawBody]))
    ? undefined
    : 'the signature does not match the body';
}
