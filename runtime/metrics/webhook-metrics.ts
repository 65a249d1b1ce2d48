/**
 * `syncline_webhook_calls_total{webhook, status}`: calls of the webhook endpoint by the webhook's
 * name (never its id: metric-labels.ts says why) and the HTTP status answered — refusals included
 * (401, 403, 404 of an unknown id, 429 of the rate limit), since those are what an operator looks
 * for when a sender's calls go missing. Counted by the endpoint in the process that answered.
 */
import { Counter, type Registry } from 'prom-client';
import type { WebhookEntry } from '../../definitions/snapshot.js';
import { webhookLabel } from './metric-labels.js';

export interface WebhookMetrics {
  /** A call answered with `status`; `entry` is the webhook called, undefined for an unknown id. */
  countCall(entry: WebhookEntry | undefined, status: number): void;
}

export function registerWebhookMetrics(registry: Registry): WebhookMetrics {
  const calls = new Counter({
    name: 'syncline_webhook_calls_total',
    help: 'Webhook calls by webhook name ((unnamed): no name; (unknown): no webhook has the id) and status answered.',
    labelNames: ['webhook', 'status'] as const,
    registers: [registry],
  });
  return {
    countCall(entry, status) {
      calls.inc({ webhook: webhookLabel(entry), status: String(status) });
    },
  };
}
