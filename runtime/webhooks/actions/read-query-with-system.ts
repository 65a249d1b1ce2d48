/**
 * readQueryWithSystem: the system's named query; `#FlowFilter#` in its statement is replaced by the
 * webhook's queryFilter, compiled by the connector with the request values bound, AND-ed with the
 * caller's own filter when paging names a filterParam and the request sends one (paging-filter.ts):
 * the configured filter always applies, the caller's can only narrow it. Each row goes through the
 * read mapping (or as it is).
 *
 * With paging the answer is {data, total}: the page size and 0-based offset come from the request
 * (paging-request.ts) and become the query's limit and skip; total is the query's countStatement,
 * or, when it declares none, `SELECT COUNT(*)` over the statement (the same filter, bound the same
 * way). `order` sorts in memory: without paging the whole result, with paging only the page — a
 * paged query is ordered by its own statement's ORDER BY, and a warning says so.
 */
import type { WebhookAnswer, WebhookCall } from '../webhook-call.js';
import { HttpProblem } from '../../errors.js';
import { collectFields } from '../../../definitions/expression/index.js';
import { mapEach } from './apply-mapping.js';
import { andFilters } from '../../sync/source-pages.js';
import { pagingFilter } from './paging-filter.js';
import { pageRequest } from './paging-request.js';
import { answersOne, maxAnswerRecords, recordsAnswer } from './read-answer.js';
import { requestPlaceholders } from './request-values.js';
import { sortRecords } from './sort-records.js';
import { systemOf } from './system-connection.js';
import { sayFilter } from './ticker-filter.js';

const flowFilter = '#FlowFilter#';

/** A count over any statement: its rows, counted by the database. */
export function countOver(statement: string): string {
  // Newlines: a trailing -- comment must not swallow the closing parenthesis.
  return `SELECT COUNT(*) FROM (\n${statement.replace(/;\s*$/, '')}\n) AS syncline_count`;
}

export async function readQueryWithSystem(call: WebhookCall): Promise<WebhookAnswer> {
  const { entry, ticker } = call;
  const hook = entry.definition;
  const label = `${hook.system}/${hook.query}`;
  const { system, connection } = await systemOf(call, hook.system!);
  const query = system.definition.queries[hook.query!]!;
  const paging = hook.paging;
  const page = paging === undefined ? undefined : pageRequest(paging, call.request);
  const one = paging === undefined && answersOne(hook);
  ticker.say(
    'start',
    `readQueryWithSystem: query ${label}${page ? `, ${page.limit} rows from offset ${page.skip}` : one ? ', first row only' : ''}`,
  );

  const requested = pagingFilter(paging, query.columns, call.request, label);
  const filter = andFilters(entry.queryFilter, requested);
  if (filter !== undefined && !query.statement.includes(flowFilter)) {
    throw new HttpProblem(
      'action-not-possible',
      `Webhook ${hook.id}: query ${label} has no ${flowFilter}, so the queryFilter cannot apply; add ${flowFilter} to its statement.`,
    );
  }
  sayFilter(ticker, 'queryFilter', entry.queryFilter);
  if (requested !== undefined) {
    // Its fields only: its literals are request data, which the ticker (kept in the log) leaves out.
    const fields = [...new Set(collectFields(requested).map((field) => field.path.join('.')))];
    ticker.say('filter', `${paging!.filterParam}: the request's filter on ${fields.join(', ') || 'no column'}, AND-ed`, { fields });
  }
  if (page && entry.order !== undefined)
    ticker.say('warning', 'order sorts within the page only; a paged query is ordered by its statement (add ORDER BY there)');

  // Without order, firstOnly needs one row; with it, every row, to sort.
  const limit = page?.limit ?? (one && entry.order === undefined ? 1 : maxAnswerRecords + 1);
  const result = await connection.query({
    statement: query.statement,
    columns: query.columns,
    ...(page === undefined ? {} : { countStatement: query.countStatement ?? countOver(query.statement) }),
    ...(filter === undefined ? {} : { filter, placeholders: requestPlaceholders(call.request.data) }),
    limit,
    ...(page === undefined ? {} : { skip: page.skip }),
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  });
  const rows = result.rows;
  if (page === undefined && rows.length > maxAnswerRecords) {
    rows.length = maxAnswerRecords;
    ticker.say(
      'warning',
      `the query returns more than ${maxAnswerRecords} rows; the answer holds the first ${maxAnswerRecords} (turn paging on)`,
    );
  }
  if (entry.order !== undefined) sortRecords(rows, entry.order);
  ticker.say('hits', `${rows.length} row(s) of ${label}${result.total === undefined ? '' : ` of ${result.total} in all`}`, {
    count: rows.length,
    ...(result.total === undefined ? {} : { total: result.total }),
  });
  const mapped =
    entry.readMapping === undefined ? rows : await mapEach(entry.readMapping, rows, { request: call.request.data }, 'readMapping');
  if (page !== undefined) return { status: 200, body: { data: mapped, total: result.total ?? mapped.length } };
  return recordsAnswer(mapped, one);
}
