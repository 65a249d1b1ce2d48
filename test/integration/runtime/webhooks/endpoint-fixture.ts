/**
 * Webhooks for the endpoint tests, one per setting under test, all starting the quickstart's sync
 * (the action itself is replaced by `fakeAction`, so these tests see only the endpoint around it),
 * and the helpers to sign requests as each network does.
 */
import { createHmac } from 'node:crypto';
import { HttpProblem } from '../../../../runtime/errors.js';
import type { WebhookActionHandler, WebhookCall } from '../../../../runtime/webhooks/webhook-call.js';
import type { Answer } from '../../../support/http-app.js';
import assert from 'node:assert/strict';

export const secrets = {
  seed: 'seed-secret-0123456789-abcdef',
  github: 'github-signing-secret-0123',
  stripe: 'whsec_stripe-signing-secret-0123',
  slack: 'slack-signing-secret-0123',
  zoom: 'zoom-secret-token-0123',
  hmac: 'hmac-signing-secret-0123',
  crc: 'x-consumer-secret-0123',
  verifyToken: 'meta-verify-token-0123',
} as const;

const hook = (id: string, extra: string) => `kind: Webhook\nid: ${id}\naction: startSync\nsync: crm-customers-to-erp\n${extra}`;

export const webhookFiles = {
  'endpoint-webhooks.yaml': [
    hook('wh_plainOpen000001', ''),
    hook('wh_inactive0000001', 'active: false\n'),
    hook('wh_secret000000001', `secret: ${secrets.seed}\nlogPayload: true\n`),
    hook(
      'wh_schema000000001',
      'requestSchema:\n  type: object\n  required: [id, event]\n  properties:\n    id: { type: integer }\n    event: { type: string }\n    address:\n      type: object\n      properties:\n        zip: { type: string, pattern: "^[0-9]{5}$" }\n',
    ),
    hook('wh_github00000001', `signature: { profile: github, secret: ${secrets.github} }\n`),
    hook('wh_stripe00000001', `signature: { profile: stripe, secret: ${secrets.stripe}, tolerance: 5m }\n`),
    hook('wh_slack000000001', `signature: { profile: slack, secret: ${secrets.slack} }\nchallenge: { profile: slack }\n`),
    hook(
      'wh_zoom0000000001',
      `signature: { profile: zoom, secret: ${secrets.zoom} }\nchallenge: { profile: zoom, secret: ${secrets.zoom} }\n`,
    ),
    hook(
      'wh_hmac0000000001',
      `signature: { profile: hmac, secret: ${secrets.hmac}, header: X-Signature, prefix: "sha512=", encoding: base64, algorithm: sha512, timestampHeader: X-Timestamp, tolerance: 1m }\n`,
    ),
    hook('wh_crc00000000001', `secret: ${secrets.seed}\nchallenge: { profile: x-crc, secret: ${secrets.crc} }\n`),
    // X's pattern: the consumer secret answers the CRC challenge and signs the events.
    hook(
      'wh_crcSigned00001',
      `challenge: { profile: x-crc, secret: ${secrets.crc} }\nsignature: { profile: hmac, secret: ${secrets.crc}, header: X-Twitter-Webhooks-Signature, prefix: "sha256=", encoding: base64, algorithm: sha256 }\n`,
    ),
    hook('wh_meta0000000001', `secret: ${secrets.seed}\nchallenge: { profile: meta, verifyToken: ${secrets.verifyToken} }\n`),
    hook('wh_condition00001', `condition: "#event# <> 'customer.deleted' AND #total# > 0"\n`),
    hook('wh_redirect000001', 'redirectUrl: https://shop.example.com/thanks\n'),
    hook('wh_idempotent0001', 'idempotency: { header: Idempotency-Key, window: 1s }\n'),
    hook('wh_idemBody000001', 'idempotency: { bodyPath: event.id, window: 1h }\n'),
    hook('wh_ratelimit00001', 'rateLimit: { requests: 2, per: 1m }\n'),
    hook('wh_cors0000000001', 'cors: { origins: ["https://shop.example.com"] }\n'),
  ].join('---\n'),
};

/** What the fake action saw, newest last. */
export const seen: WebhookCall[] = [];
/** Calls with `{"wait": true}` hold until this is resolved (to test a duplicate of a running call). */
export const gate = { open: () => {}, opened: Promise.resolve() };
export function closeGate(): void {
  let open = () => {};
  gate.opened = new Promise<void>((resolve) => (open = resolve));
  gate.open = open;
}

/**
 * Answers 200 with the data it received; `{"empty": true}` → 204, `{"fail": "problem"}` → an
 * HttpProblem, `{"fail": "crash"}` → an unknown error whose message must not reach the caller.
 */
export const fakeAction: WebhookActionHandler = async (call) => {
  seen.push(call);
  const data = call.request.data as Record<string, unknown> | undefined;
  call.ticker.say('queued', 'fake action ran');
  if (data?.wait === true) await gate.opened;
  if (data?.empty === true) return { status: 204 };
  if (data?.fail === 'problem') throw new HttpProblem('rejected', 'The system refused the record: duplicate email.');
  if (data?.fail === 'crash') throw new Error('connection string postgres://admin:hunter2@db leaked');
  return { status: 200, body: { received: data ?? null, n: seen.length }, queueItemId: '00000000-0000-4000-8000-000000000001' };
};

export function unixNow(offsetSeconds = 0): string {
  return String(Math.floor(Date.now() / 1000) + offsetSeconds);
}

export function hmacOf(algorithm: string, secret: string, text: string, encoding: 'hex' | 'base64' = 'hex'): string {
  return createHmac(algorithm, secret).update(text).digest(encoding);
}

export function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.type, 'application/problem+json', answer.text);
  assert.equal(answer.json.type, `urn:syncline:problem:${code}`, answer.text);
  if (detail) assert.match(answer.json.detail, detail);
}
