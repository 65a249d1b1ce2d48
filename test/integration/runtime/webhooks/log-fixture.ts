/** Webhooks the log and console tests add to the quickstart, and a way to record calls of them. */
import { randomUUID } from 'node:crypto';
import { recordWebhookCall, type WebhookCallRecord } from '../../../../runtime/webhooks/log/record-call.js';
import type { TickerMessage } from '../../../../runtime/webhooks/ticker.js';
import { sha256 } from '../../../../runtime/http/auth.js';
import { redactionOf } from '../../../../runtime/webhooks/log/redact.js';
import { signatureHeaderOf } from '../../../../runtime/webhooks/signatures/index.js';
import { tokens, type HttpApp } from '../../../support/http-app.js';

export const webhooks = {
  /** The quickstart's own: logPayload on, secret quickstart-webhook-secret. */
  quickstart: 'wh_crmCustomerChanged01',
  noPayload: 'wh_logTestNoPayload0001',
  signed: 'wh_logTestSigned0000001',
  shortLived: 'wh_logTestShortLived001',
  paged: 'wh_logTestPaged00000001',
  inactive: 'wh_logTestInactive00001',
} as const;

export const quickstartSecret = 'quickstart-webhook-secret';

const startSync = 'active: true\naction: startSync\nsync: crm-customers-to-erp\n';
export const logWebhookFiles: Record<string, string> = {
  'log-webhooks.yaml': [
    `kind: Webhook\nid: ${webhooks.noPayload}\nlogPayload: false\n${startSync}`,
    `kind: Webhook\nid: ${webhooks.signed}\nlogPayload: true\nsignature: { profile: hmac, secret: signing-secret-value, header: X-Acme-Auth }\n${startSync}`,
    `kind: Webhook\nid: ${webhooks.shortLived}\nlogPayload: true\nlogRetention: 1s\n${startSync}`,
    `kind: Webhook\nid: ${webhooks.paged}\nlogPayload: false\n${startSync}`,
    `kind: Webhook\nid: ${webhooks.inactive}\nlogPayload: true\nactive: false\naction: startSync\nsync: crm-customers-to-erp\n`,
  ].join('---\n'),
};

const ticker: TickerMessage[] = [
  { at: '2030-01-01T00:00:00.000Z', kind: 'start', message: 'call received' },
  {
    at: '2030-01-01T00:00:00.005Z',
    kind: 'queued',
    message: 'queue item created',
    data: { queueItemId: '00000000-0000-4000-8000-000000000001' },
  },
];

/** Records one call of `webhookId` as the endpoint would; answers its id. */
export async function record(app: HttpApp, webhookId: string, change: Partial<WebhookCallRecord> = {}): Promise<string> {
  const id = randomUUID();
  const entry = app.holder.current.webhooks.get(webhookId)!;
  const definition = entry.definition;
  const body = { id: 7, event: 'customer.updated' };
  await recordWebhookCall(app.db, {
    id,
    webhookId,
    at: new Date(),
    method: 'POST',
    status: 200,
    durationMs: 12.4,
    queueItemId: '00000000-0000-4000-8000-000000000001',
    ticker,
    request: {
      method: 'POST',
      data: body,
      query: {},
      headers: { 'content-type': 'application/json' },
      rawBody: Buffer.from(JSON.stringify(body)),
    },
    response: { status: 200, body: { ID: '00000000-0000-4000-8000-000000000001', Status: 'Pending' } },
    logPayload: definition.logPayload,
    retention: definition.logRetention,
    // As the endpoint redacts: the webhook's names and secrets, every client's token and the admin's.
    redaction: redactionOf(
      entry,
      app.holder.current,
      definition.signature && signatureHeaderOf(definition.signature),
      sha256(tokens.admin),
    ),
    ...change,
  });
  return id;
}
