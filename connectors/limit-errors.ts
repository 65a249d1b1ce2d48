/**
 * The ConnectorErrors of a System's `limits:`. Each names the limit, its value and where to change
 * it (the System definition's `limits.<name>`), so the caller learns what happened and the operator
 * what to raise — or, for a result over the cap, how to ask for less.
 */
import type { SystemLimits } from '../definitions/system-limits.js';
import { ConnectorError } from './connector-error.js';

/** `doing` ("reading Customer") ran past limits.statementTimeout and was stopped. */
export function statementTimeoutError(systemId: string, doing: string, limits: SystemLimits, cause?: unknown): ConnectorError {
  return new ConnectorError(
    'timeout',
    `system '${systemId}': stopped ${doing} at the statement timeout of ${limits.statementTimeout}; narrow the statement or filter, or raise limits.statementTimeout in the System definition '${systemId}'`,
    { cause, details: { system: systemId, limit: 'statementTimeout', value: limits.statementTimeout } },
  );
}

/** A free query's rows reached limits.queryRows (`rows`) or limits.queryBytes (`bytes`). */
export function resultTooLargeError(systemId: string, over: 'rows' | 'bytes', limits: SystemLimits, cause?: unknown): ConnectorError {
  const [limit, value, what] =
    over === 'rows'
      ? (['queryRows', limits.queryRows, `more than ${limits.queryRows} rows`] as const)
      : (['queryBytes', limits.queryBytesText, `more than ${limits.queryBytesText} of rows`] as const);
  return new ConnectorError(
    'too-large',
    `system '${systemId}': the query answers ${what}, over limits.${limit} (${value}) of the System definition '${systemId}'; ask for a page at a time (a limit of at most ${limits.queryRows} rows and a skip), narrow the statement, or raise limits.${limit}`,
    { cause, details: { system: systemId, limit, value } },
  );
}

/**
 * One row (PostgreSQL) or value (SQLite) of an answer is longer than `limit` allows
 * (sql/answer-size.ts): limits.queryBytes for a free query, else `rowBytes`, the most Syncline
 * reads in one row at all. No page is small enough, so the way out is to read less of it.
 */
export function rowTooLargeError(
  systemId: string,
  doing: string,
  what: 'row' | 'value',
  limit: { name: 'queryBytes'; limits: SystemLimits } | { name: 'rowBytes'; text: string },
  cause?: unknown,
): ConnectorError {
  const over =
    limit.name === 'queryBytes'
      ? `more than ${limit.limits.queryBytesText}, over limits.queryBytes (${limit.limits.queryBytesText}) of the System definition '${systemId}'`
      : `more than ${limit.text}, the most Syncline reads in one ${what}`;
  const raise = limit.name === 'queryBytes' ? ', or raise limits.queryBytes' : '';
  return new ConnectorError(
    'too-large',
    `system '${systemId}': stopped ${doing} at a ${what} of ${over}; leave the large column out, or select a part of it (substring)${raise}`,
    {
      cause,
      details: {
        system: systemId,
        limit: limit.name,
        value: limit.name === 'queryBytes' ? limit.limits.queryBytesText : limit.text,
        oneRow: true,
      },
    },
  );
}

/** As many free queries as may run at once (`running`) ran for all of limits.queryWait. */
export function queryBusyError(systemId: string, running: number, limits: SystemLimits, retryAfterSeconds: number): ConnectorError {
  // SQLite runs fewer than concurrentQueries at once (sql/engines/sqlite.ts, queryConcurrency): say so.
  const cap =
    running < limits.concurrentQueries
      ? `as many as SQLite may run at once (half of UV_THREADPOOL_SIZE; limits.concurrentQueries is ${limits.concurrentQueries})`
      : 'its limits.concurrentQueries';
  return new ConnectorError(
    'busy',
    `system '${systemId}': ${running} free queries are running, ${cap}, and none ended within limits.queryWait (${limits.queryWait}); retry after ${retryAfterSeconds} s, or raise limits.concurrentQueries in the System definition '${systemId}'`,
    { details: { system: systemId, limit: 'concurrentQueries', value: running, retryAfterSeconds } },
  );
}
