/**
 * The action dispatcher (actions/index.ts), loaded on the first webhook call: the actions bring
 * the sync engine, mappings and connectors with them, which a process that serves no webhook
 * calls — the CLI, a daemon — has no reason to load (the registry style of connectors/index.ts).
 */
import type { WebhookActionHandler } from './webhook-call.js';

let dispatcher: Promise<WebhookActionHandler> | undefined;

export const runWebhookActionLazily: WebhookActionHandler = async (call) => {
  dispatcher ??= import('./actions/index.js').then((module) => module.runWebhookAction);
  return (await dispatcher)(call);
};
