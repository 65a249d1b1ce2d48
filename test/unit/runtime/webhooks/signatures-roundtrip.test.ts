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

test('a valid signature with a character added, dropped or past its padding is refused, in either encoding', () => {
  const body = Buffer.from('{"id":1}');
  for (const settings of [profiles[0]!, profiles[4]!]) {
    const headers = signatureHeaders(settings, body);
    const [name, value] = Object.entries(headers).find(([header]) => !/timestamp/i.test(header))!;
    const variants =
      settings.encoding === 'hex'
        ? [`${value}f`, `${value}0`, value.slice(0, -1)]
        : [`${value}A`, `${value}=`, `${value.replace(/=+$/, '')}A==`, value.replace(/=+$/, '').slice(0, -1)];
    for (const altered of variants) {
      assert.match(verifySignature(settings, request(body, { ...headers, [name]: altered })) ?? '', /match/, altered);
    }
    // Hex in capitals, base64 without its padding: the same bytes, read.
    const same = settings.encoding === 'hex' ? value.replace(/[0-9a-f]+$/, (hex) => hex.toUpperCase()) : value.replace(/=+$/, '');
    assert.equal(verifySignature(settings, request(body, { ...headers, [name]: same })), undefined, same);
  }
});
