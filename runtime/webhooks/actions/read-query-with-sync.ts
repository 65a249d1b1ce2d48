/**
 * readQueryWithSync: the sync's source query, with `#FlowFilter#` replaced by the webhook's
 * queryFilter AND the sync's own `where` (compiled by the connector, request values bound), each
 * row through the sync's precondition and mapping. `order` (the webhook's, else the sync's) sorts
 * in memory: a query has no ORDER BY to push to. An array, or the first object when firstOnly.
 */
import { HttpProblem } from '../../errors.js';
import { andFilters } from '../../sync/source-pages.js';
import type { WebhookAnswer, WebhookCall } from '../webhook-call.js';
import { answersOne, maxAnswerRecords, recordsAnswer } from './read-answer.js';
import { sortRecords } from './sort-records.js';
import { systemOf } from './system-connection.js';
import { requestParams, syncOf, syncPlaceholders, throughSync } from './sync-view.js';
import { sayFilter } from './ticker-filter.js';

export async function readQueryWithSync(call: WebhookCall): Promise<WebhookAnswer> {
  const { entry, ticker } = call;
  const hook = entry.definition;
  const sync = syncOf(call);
  const source = sync.definition.source;
  if (source.system === undefined || source.query === undefined) {
    const kind = source.recordStore ? 'the record store' : `object ${source.object}`;
    throw new HttpProblem(
      'action-not-possible',
      `Webhook ${hook.id}: sync '${sync.definition.id}' reads ${kind}, not a query; readQueryWithSync needs a sync reading a named query (use readWithSync for an object).`,
    );
  }
  const label = `${source.system}/${source.query}`;
  const one = answersOne(hook);
  ticker.say('start', `readQueryWithSync: sync ${sync.definition.id} running query ${label}${one ? ', first row only' : ''}`);
  const { system, connection } = await systemOf(call, source.system);
  const query = system.definition.queries[source.query];
  if (query === undefined)
    throw new HttpProblem('action-not-possible', `Webhook ${hook.id}: system '${source.system}' has no query '${source.query}'.`);
  const params = requestParams(call);
  const filter = andFilters(sync.where, entry.queryFilter);
  if (filter !== undefined && !query.statement.includes('#FlowFilter#')) {
    throw new HttpProblem(
      'action-not-possible',
      `Webhook ${hook.id}: query ${label} has no #FlowFilter#, so the queryFilter and the sync's where cannot apply; add #FlowFilter# to its statement.`,
    );
  }
  sayFilter(ticker, 'queryFilter', filter);
  const order = entry.order ?? sync.order;
  const limit = one && order === undefined && sync.precondition === undefined ? 1 : maxAnswerRecords + 1;
  const { rows } = await connection.query({
    statement: query.statement,
    columns: query.columns,
    ...(filter === undefined ? {} : { filter, placeholders: syncPlaceholders(call, params) }),
    limit,
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  });
  if (rows.length > maxAnswerRecords) {
    rows.length = maxAnswerRecords;
    ticker.say('warning', `the query returns more than ${maxAnswerRecords} rows; the answer holds the first ${maxAnswerRecords}`);
  }
  if (order !== undefined) sortRecords(rows, order);
  const { mapped, left } = await throughSync(sync, rows, params);
  ticker.say('hits', `${rows.length} row(s) of ${label}${left > 0 ? `, ${left} left out by the precondition` : ''}`, {
    count: mapped.length,
    read: rows.length,
  });
  return recordsAnswer(mapped, one);
}
