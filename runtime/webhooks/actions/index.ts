/**
 * The seven webhook actions, one file each, chosen by the webhook's `action`. The endpoint
 * (webhook-route.ts) has validated the request, checked security and the condition before; an
 * action only reads the call, says what it does on the ticker, and answers or throws HttpProblem.
 */
import type { WebhookAction } from '../../../definitions/types.js';
import { toHttpProblem } from '../../errors.js';
import type { WebhookActionHandler, WebhookAnswer, WebhookCall } from '../webhook-call.js';
import { readQueryWithSync } from './read-query-with-sync.js';
import { readQueryWithSystem } from './read-query-with-system.js';
import { readWithSync } from './read-with-sync.js';
import { readWithSystem } from './read-with-system.js';
import { saveWithSync } from './save-with-sync.js';
import { saveWithSystem } from './save-with-system.js';
import { startSync } from './start-sync.js';

export const webhookActions: Readonly<Record<WebhookAction, WebhookActionHandler>> = Object.freeze({
  startSync,
  readWithSync,
  readQueryWithSync,
  saveWithSync,
  readWithSystem,
  readQueryWithSystem,
  saveWithSystem,
});

export async function runWebhookAction(call: WebhookCall): Promise<WebhookAnswer> {
  const run = webhookActions[call.entry.definition.action];
  try {
    return await run(call);
  } catch (error) {
    // The endpoint turns the error into the answer; the ticker keeps the story for the log.
    // toHttpProblem: what the caller may see; an unknown error is only named as one.
    call.ticker.say('error', toHttpProblem(error).detail);
    throw error;
  }
}
