/**
 * readWithSync: the sync's source object read with the webhook's `search` (request values bound)
 * AND the sync's own `where`, sorted by the webhook's `order` (else the sync's), then each record
 * through the sync's precondition and mapping (sync-view.ts): the caller sees records as the sync
 * would write them. An array, or the first object when firstOnly (204 when none).
 */
import { HttpProblem } from '../../errors.js';
import { andFilters } from '../../sync/source-pages.js';
import type { WebhookAnswer, WebhookCall } from '../webhook-call.js';
import { answersOne, maxAnswerRecords, recordsAnswer } from './read-answer.js';
import { collect, systemOf } from './system-connection.js';
import { requestParams, syncOf, syncPlaceholders, throughSync } from './sync-view.js';
import { sayFilter } from './ticker-filter.js';

export async function readWithSync(call: WebhookCall): Promise<WebhookAnswer> {
  const { entry, ticker } = call;
  const sync = syncOf(call);
  const source = sync.definition.source;
  if (source.system === undefined || source.object === undefined) {
    const kind = source.recordStore ? 'the record store' : `query ${source.query}`;
    throw new HttpProblem(
      'action-not-possible',
      `Webhook ${entry.definition.id}: sync '${sync.definition.id}' reads ${kind}, not an object; readWithSync needs a sync reading an object (use readQueryWithSync for a query).`,
    );
  }
  const label = `${source.system}/${source.object}`;
  const one = answersOne(entry.definition);
  ticker.say('start', `readWithSync: sync ${sync.definition.id} reading ${label}${one ? ', first record only' : ''}`);
  const { connection } = await systemOf(call, source.system);
  const params = requestParams(call);
  const filter = andFilters(sync.where, entry.search);
  sayFilter(ticker, 'search', filter);
  const order = entry.order ?? sync.order;
  // The precondition may leave records out, so firstOnly cannot stop at one when there is one.
  const limit = one && sync.precondition === undefined ? 1 : maxAnswerRecords + 1;
  const records = await collect(
    connection.read(source.object, {
      ...(filter === undefined ? {} : { filter, placeholders: syncPlaceholders(call, params) }),
      ...(order === undefined ? {} : { order }),
      limit,
      pageSize: Math.min(limit, sync.definition.batchSize),
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
  const { mapped, left } = await throughSync(sync, records, params);
  ticker.say('hits', `${records.length} record(s) of ${label}${left > 0 ? `, ${left} left out by the precondition` : ''}`, {
    count: mapped.length,
    read: records.length,
  });
  return recordsAnswer(mapped, one);
}
