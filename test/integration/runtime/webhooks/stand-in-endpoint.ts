/**
 * A stand-in for the endpoint's `executeWebhook`, for the console tests while the endpoint is
 * built beside them: it does what the console relies on — 404 for an unknown id, 410 when
 * inactive, 403 without the secret, ticker messages on `tickerBus` as the call runs (with a pause
 * between them, so a stream shows them live), one log entry per call through recordWebhookCall —
 * and answers 200 with the data it received.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SnapshotHolder } from '../../../../definitions/snapshot-holder.js';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import type { ExecutedWebhookCall, RunWebhook } from '../../../../runtime/http/webhook-console-routes.js';
import { recordWebhookCall } from '../../../../runtime/webhooks/log/record-call.js';
import { redactionOf } from '../../../../runtime/webhooks/log/redact.js';
import { signatureHeaderOf } from '../../../../runtime/webhooks/signatures/index.js';
import { createTicker } from '../../../../runtime/webhooks/ticker.js';

export function standInEndpoint({ db, holder }: { db: RuntimeDatabase; holder: SnapshotHolder }): RunWebhook {
  return async (webhookId, request, { callId }) => {
    const started = performance.now();
    const at = new Date();
    const ticker = createTicker(callId);
    const entry = holder.current.webhooks.get(webhookId);
    const problem = (status: number, detail: string): ExecutedWebhookCall => ({
      status,
      headers: { 'content-type': 'application/problem+json' },
      body: JSON.stringify({ status, detail }),
    });
    let answer: ExecutedWebhookCall;
    if (!entry) return problem(404, 'unknown webhook');
    const secret = entry.definition.secret;
    const presented = request.headers.service_webhooksecret ?? request.headers.authorization;
    ticker.say('start', `call of ${webhookId}`);
    await sleep(30);
    if (!entry.definition.active) answer = problem(410, 'inactive');
    else if (secret !== undefined && presented !== secret) {
      ticker.say('error', 'secret missing or wrong');
      answer = problem(403, 'secret');
    } else {
      ticker.say('filter', 'condition true');
      await sleep(30);
      ticker.say('queued', 'queue item created', { queueItemId: '00000000-0000-4000-8000-00000000000a' });
      answer = {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ received: request.data }),
      };
    }
    ticker.say('done', `answered ${answer.status}`);
    await recordWebhookCall(db, {
      id: callId,
      webhookId,
      at,
      method: request.method,
      status: answer.status,
      durationMs: performance.now() - started,
      ...(answer.status === 200 ? { queueItemId: '00000000-0000-4000-8000-00000000000a' } : {}),
      ticker: ticker.messages,
      request,
      response: { status: answer.status, body: answer.body },
      logPayload: entry.definition.logPayload,
      retention: entry.definition.logRetention,
      redaction: redactionOf(entry, holder.current, entry.definition.signature && signatureHeaderOf(entry.definition.signature), undefined),
    });
    return answer;
  };
}
