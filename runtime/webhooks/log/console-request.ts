/**
 * The requests the console sends to a webhook: typed JSON from the test dialog, or the request a
 * pinned log entry kept (a test with a pin, a replay). They run through the endpoint's own code
 * (`executeWebhook`), so they meet the same security: the console adds the webhook's secret, as
 * the caller it stands in for would, because the operator holding the `console` scope is trusted
 * with the webhook's configuration anyway, and a logged request has its secret redacted; for the
 * same reason it signs the body afresh when the webhook checks signatures.
 */
import type { WebhookDefinition } from '../../../definitions/types.js';
import type { WebhookRequest } from '../webhook-call.js';
import type { LoggedPayload } from './record-call.js';
import { signatureHeaders } from '../signatures/sign.js';
import { redacted } from './redact.js';

const userAgent = 'syncline-console';

/** A POST of `data` as JSON. */
export function requestFromData(definition: WebhookDefinition, data: unknown): WebhookRequest {
  const rawBody = Buffer.from(JSON.stringify(data), 'utf8');
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(rawBody.length),
    'user-agent': userAgent,
    ...secretHeader(definition),
    ...(definition.signature === undefined ? {} : signatureHeaders(definition.signature, rawBody)),
  };
  return { method: 'POST', data, query: {}, headers, rawBody };
}

/**
 * The request a log entry kept, again; undefined when it was not kept whole — cut for size, or
 * with credentials taken out of its data or query, where a replay would send `[redacted]` as if
 * it were the value.
 */
export function requestFromPayload(
  definition: WebhookDefinition,
  method: string,
  payload: LoggedPayload | null,
): WebhookRequest | undefined {
  if (payload === null || payload.truncated !== undefined || payload.note !== undefined || payload.redacted !== undefined) return undefined;
  // A redacted header cannot be sent again as it was; the secret and signature are added fresh below.
  const headers = Object.fromEntries(
    Object.entries(payload.headers).filter(([, value]) => ![value].flat().some((text) => text.includes(redacted))),
  );
  const rawBody = payload.body === undefined ? Buffer.alloc(0) : Buffer.from(payload.body, payload.bodyEncoding ?? 'utf8');
  const signed = definition.signature === undefined ? {} : signatureHeaders(definition.signature, rawBody);
  return { method, data: payload.data, query: payload.query, headers: { ...headers, ...secretHeader(definition), ...signed }, rawBody };
}

function secretHeader(definition: WebhookDefinition): Record<string, string> {
  return definition.secret === undefined || definition.secret === '' ? {} : { service_webhooksecret: definition.secret };
}
