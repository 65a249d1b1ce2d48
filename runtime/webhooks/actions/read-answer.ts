/**
 * The answer of a read action. One object (firstOnly, or a response schema of type object): the
 * first record. Otherwise an array. No record found: 204, as the seed's status table says ("success
 * without result, e.g. no record found"). A paged read answers `{data, total}` even when empty:
 * the page and its total are a result.
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
  const first = records[0];
  if (first === undefined) return { status: 204 };
  return one ? { status: 200, body: first } : { status: 200, body: records };
}
