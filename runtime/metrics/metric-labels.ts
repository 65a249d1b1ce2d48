/**
 * Label values of the metrics, bounded and free of secrets whatever callers send: a label value
 * is only ever taken from the definitions loaded, never from a request or a database row as it is.
 *
 * - Syncs and flows: their id when the current snapshot defines it, else `(other)` — items of a
 *   sync renamed or removed since, whose ids would otherwise add series forever.
 * - Webhooks: their `name`, never their id. /metrics needs no token, and a webhook's id is its URL,
 *   for a webhook without a secret or signature the only thing that keeps strangers out. A name is
 *   an administrative label (definitions/schemas/webhook.schema.json) shown wherever the webhook
 *   is, and names need not be unique: webhooks sharing one are counted together. A webhook without
 *   a name counts as `(unnamed)`; a call of an id no webhook has as `(unknown)`.
 */
import type { Snapshot, WebhookEntry } from '../../definitions/snapshot.js';

/** The label of items of processes the current definitions do not know. */
export const otherProcess = '(other)';
/** The label of calls of webhook ids that no webhook has. */
export const unknownWebhook = '(unknown)';
/** The label of calls of webhooks without a name. */
export const unnamedWebhook = '(unnamed)';

/** The `sync` label of a sync or flow id. */
export function processLabel(snapshot: Snapshot, processId: string): string {
  return snapshot.syncs.has(processId) || snapshot.flows.has(processId) ? processId : otherProcess;
}

/** The sync and flow ids of the snapshot: the `sync` labels queue gauges always show, zero or not. */
export function processLabels(snapshot: Snapshot): string[] {
  return [...snapshot.syncs.keys(), ...snapshot.flows.keys()];
}

/** The `webhook` label of a call: the webhook's name, never its id. */
export function webhookLabel(entry: WebhookEntry | undefined): string {
  if (entry === undefined) return unknownWebhook;
  const name = entry.definition.name?.trim();
  return name === undefined || name === '' ? unnamedWebhook : name;
}
