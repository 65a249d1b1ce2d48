/**
 * What the console signs, the endpoint accepts: for every signature profile, headers made by
 * signatureHeaders verify with verifySignature — and fail when the body changes — so the console's
 * test and replay work on webhooks that check signatures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WebhookDefinition } from '../../../../definitions/types.js';
import { verifySignature } from '../../../../runtime/webhooks/signatures/index.js';
import { signatureHeaders } from '../../../../runtime/webhooks/signatures/sign.js';
import type { WebhookRequest } from '../../../../runtime/webhooks/webhook-call.js';

type Settings = NonNullable<WebhookDefinition['signature']>;
const base = { secret: 'a-signing-secret', encoding: 'hex', algorithm: 'sha256', tolerance: '5m' } as const;
const profiles: Settings[] = [
  { ...base, profile: 'github' },
  { ...base, profile: 'stripe' },
  { ...base, profile: 'slack' },
  { ...base, profile: 'zoom' },
  {
    ...base,
    profile: 'hmac',
    header: 'X-Signature',
    prefix: 'sha512=',
    algorithm: 'sha512',
    encoding: 'base64',
    timestampHeader: 'X-Timestamp',
  },
  { ...base, profile: 'hmac', header: 'X-Plain-Signature' },
];

function request(rawBody: Buffer, headers: Record<string, string>): WebhookRequest {
  return {
    method: 'POST',
    data: JSON.parse(rawBody.toString('utf8')),
    query: {},
    headers: { 'content-type': 'application/json', ...headers },
    rawBody,
  };
}

for (const settings of profiles) {
  test(`${settings.profile}${settings.header ? ` (${settings.header})` : ''}: signed by the console, accepted by the endpoint`, () => {
    const body = Buffer.from(JSON.stringify({ id: 1, event: 'customer.updated' }));
    const headers = signatureHeaders(settings, body);
    assert.equal(verifySignature(settings, request(body, headers)), undefined);
    const changed = Buffer.from(JSON.stringify({ id: 2, event: 'customer.updated' }));
    assert.match(verifySignature(settings, request(changed, headers)) ?? '', /match/);
  });
}
