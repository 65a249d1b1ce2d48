/**
 * The answer of a read action. One object (firstOnly, or a response schema of type object): the
 * first record, 204 when there is none. Otherwise an array, 200 even when empty — an empty list is
 * a result a client parses like any other, where 204 would need a special case.
 */
import type { WebhookDefinition } from '../../../definitions/types.js';
import type { WebhookAnswer } from '../webhook-call.js';

/** Most records a read answers; more are cut off with a warning (use paging for large results). */
export const maxAnswerRecords = 10_000;

/** Whether the webhook answers one object rather than an array. */
export function answersOne(hook: WebhookDefinition): boolean {
  return hook.firstOnly || hook.responseSchema?.type === 'object';
}

export function recordsAnswer(records: readonly unknown[], one: boolean): WebhookAnswer {
  if (!one) return { status: 200, body: records };
  const first = records[0];
  return first === undefined ? { status: 204 } : { status: 200, body: first };
}
