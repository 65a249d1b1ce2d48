/**
 * The generic profile for any other sender: an HMAC (sha256, sha512 or sha1) of the body in a
 * header of choice, hex or base64, after an optional prefix such as `sha256=`. With a timestamp
 * header, the signed text is `<timestamp>.<body>` and the timestamp must be within the tolerance.
 */
import type { WebhookDefinition } from '../../../definitions/types.js';
import type { WebhookRequest } from '../webhook-call.js';
import { first } from '../webhook-secret.js';
import { hmac, signatureEquals, timestampProblem, type SignatureFailure } from './signed-parts.js';

type Settings = NonNullable<WebhookDefinition['signature']>;

export function verifyHmac(settings: Settings, request: WebhookRequest, toleranceMs: number, nowMs: number): SignatureFailure | undefined {
  // check-webhook.ts requires `header` for this profile.
  const name = (settings.header ?? '').toLowerCase();
  const header = first(request.headers[name]);
  if (header === undefined) return `the ${name} header is missing`;
  const prefix = settings.prefix ?? '';
  if (!header.startsWith(prefix)) return `the ${name} header does not start with ${prefix}`;
  const parts: Array<string | Buffer> = [request.rawBody];
  if (settings.timestampHeader !== undefined) {
    const timestamp = first(request.headers[settings.timestampHeader.toLowerCase()]);
    const stale = timestampProblem(timestamp, toleranceMs, nowMs);
    if (stale) return stale;
    parts.unshift(`${timestamp!.trim()}.`);
  }
  const expected = hmac(settings.algorithm, settings.secret, parts);
  return signatureEquals(header.slice(prefix.length), settings.encoding, expected) ? undefined : 'the signature does not match the body';
}
