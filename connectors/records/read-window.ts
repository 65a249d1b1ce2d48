/**
 * The window of a read every connector takes from a ReadRequest the same way: records per page,
 * records to pass over, and most records in all — each a whole number, or a ConnectorError
 * ('invalid-value') naming the parameter.
 */
import type { ReadRequest } from '../connection.js';
import { ConnectorError } from '../connector-error.js';

/** Records per page when the request does not say. */
export const DEFAULT_PAGE_SIZE = 500;

export interface ReadWindow {
  pageSize: number;
  skip: number;
  /** Infinity when the request sets no limit. */
  limit: number;
}

/** `raw` when it is a whole number of at least `minimum` (undefined when absent); else the ConnectorError naming the parameter. */
export function wholeNumber(name: string, raw: number | undefined, minimum: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!Number.isSafeInteger(raw) || raw < minimum) {
    throw new ConnectorError('invalid-value', `${name} must be a whole number of at least ${minimum}`, { details: { parameter: name } });
  }
  return raw;
}

export function readWindow(request: Pick<ReadRequest, 'pageSize' | 'skip' | 'limit'>, defaultPageSize = DEFAULT_PAGE_SIZE): ReadWindow {
  return {
    pageSize: wholeNumber('pageSize', request.pageSize, 1) ?? defaultPageSize,
    skip: wholeNumber('skip', request.skip, 0) ?? 0,
    limit: wholeNumber('limit', request.limit, 0) ?? Number.POSITIVE_INFINITY,
  };
}
