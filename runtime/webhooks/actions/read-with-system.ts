/**
 * readWithSystem: a direct read of the webhook's system/object — no sync, no transformation. The
 * `search` filters (its `#Field#` placeholders take request values, bound by the connector), `order`
 * sorts, and each record goes through the read mapping, or as it is without one. The response
 * schema decides object or array (see read-answer.ts).
 */
import type { WebhookAnswer, WebhookCall } from '../webhook-call.js';
import { mapEach } from './apply-mapping.js';
import { answersOne, maxAnswerRecords, recordsAnswer } from './read-answer.js';
import { requestPlaceholders } from './request-values.js';
import { collect, systemOf } from './system-connection.js';
import { sayFilter } from './ticker-filter.js';

export async function readWithSystem(call: WebhookCall): Promise<WebhookAnswer> {
  const { entry, ticker } = call;
  const hook = entry.definition;
  const label = `${hook.system}/${hook.object}`;
  const one = answersOne(hook);
  ticker.say('start', `readWithSystem: reading ${label}${one ? ', first record only' : ''}`);
  const { connection } = await systemOf(call, hook.system!);
  sayFilter(ticker, 'search', entry.search);
  // One more than answered, to tell a full answer from a cut one.
  const limit = one ? 1 : maxAnswerRecords + 1;
  const records = await collect(
    connection.read(hook.object!, {
      ...(entry.search === undefined ? {} : { filter: entry.search, placeholders: requestPlaceholders(call.request.data) }),
      ...(entry.order === undefined ? {} : { order: entry.order }),
      limit,
      pageSize: Math.min(limit, 500),
      ...(call.signal === undefined ? {} : { signal: call.signal }),
    }),
    limit,
  );
  if (records.length > maxAnswerRecords) {
    records.length = maxAnswerRecords;
    ticker.say(
      'warning',
      `more than ${maxAnswerRecords} records match; the answer holds the first ${maxAnswerRecords} (narrow the search)`,
    );
  }
  ticker.say('hits', `${records.length} record(s) of ${label}`, { count: records.length });
  const answer =
    entry.readMapping === undefined ? records : await mapEach(entry.readMapping, records, { request: call.request.data }, 'readMapping');
  return recordsAnswer(answer, one);
}
