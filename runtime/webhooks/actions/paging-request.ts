/**
 * The page a readQueryWithSystem caller asks for: the page size and the 0-based offset from the
 * request properties the webhook names (pageSizeParam, offsetParam; defaults pageSize and offset),
 * looked up in the request data first, then in the query string (a POST with ?pageSize=…). Given
 * as a number or as digits; anything else, a size above maxPageSize or below 1, or a negative
 * offset answers 400 naming the property. The filter property is paging-filter.ts's.
 */
import type { WebhookDefinition } from '../../../definitions/types.js';
import { HttpProblem } from '../../errors.js';
import type { WebhookRequest } from '../webhook-call.js';
import { isPlainRecord } from './request-values.js';

export interface PageRequest {
  limit: number;
  skip: number;
}

type Paging = NonNullable<WebhookDefinition['paging']>;

/** The request's value of `name` and where it was found (for the problem's path); null and '' in the data count as absent. */
export function requestValue(request: WebhookRequest, name: string): { value: unknown; path: string } | undefined {
  const data = request.data;
  if (isPlainRecord(data) && Object.hasOwn(data, name) && data[name] !== null && data[name] !== '')
    return { value: data[name], path: `/${name}` };
  if (Object.hasOwn(request.query, name)) return { value: request.query[name], path: `query.${name}` };
  return undefined;
}

function wholeNumber(request: WebhookRequest, name: string, fallback: number, minimum: number, maximum: number): number {
  const found = requestValue(request, name);
  if (found === undefined) return fallback;
  const { value, path } = found;
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d{1,15}\s*$/.test(value) ? Number(value) : Number.NaN;
  let message: string | undefined;
  if (!Number.isSafeInteger(number))
    message = `${name} must be a whole number${typeof value === 'string' || typeof value === 'number' ? '' : `, not ${Array.isArray(value) ? 'a list' : typeof value}`}.`;
  else if (number < minimum) message = `${name} must be at least ${minimum}, not ${number}.`;
  else if (number > maximum) message = `${name} must be at most ${maximum}, not ${number}.`;
  if (message !== undefined) throw new HttpProblem('invalid-request', message, { errors: [{ path, message }] });
  return number;
}

export function pageRequest(paging: Paging, request: WebhookRequest): PageRequest {
  return {
    limit: wholeNumber(request, paging.pageSizeParam, paging.defaultPageSize, 1, paging.maxPageSize),
    skip: wholeNumber(request, paging.offsetParam, 0, 0, Number.MAX_SAFE_INTEGER),
  };
}
