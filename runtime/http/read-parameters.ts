/**
 * The read parameter array of RunConnectionGetData(Min): `[{name, value}]` with the names
 * GETDATA_WHERE, GETDATA_ID, GETDATA_LIMIT, GETDATA_SKIP and GETDATA_ORDER. Names are matched
 * case-insensitively; anything else is a 400 naming the known ones.
 */
import type { ReadRequest } from '../../connectors/connection.js';
import type { ObjectDescription } from '../../connectors/connection.js';
import { collectPlaceholders, ExpressionSyntaxError, parseExpression } from '../../definitions/expression/index.js';
import { OrderSyntaxError, parseOrder } from '../../definitions/order/parse-order.js';
import { HttpProblem, type ProblemDetail } from '../errors.js';
import { parseKey } from '../sync/record-key.js';
import type { SystemEntry } from '../../definitions/snapshot.js';
import { requireCapabilities, type Capability, type CapabilityUse } from './require-capability.js';

export const readParameterNames = ['GETDATA_WHERE', 'GETDATA_ID', 'GETDATA_LIMIT', 'GETDATA_SKIP', 'GETDATA_ORDER'] as const;
type ReadParameterName = (typeof readParameterNames)[number];

export interface ReadParameters extends Pick<ReadRequest, 'filter' | 'id' | 'limit' | 'skip' | 'order'> {}

/** The connector capability each parameter needs (GETDATA_WHERE needs none: without push-down the connector filters in memory). */
const neededCapability: Partial<Record<ReadParameterName, Capability>> = { GETDATA_LIMIT: 'limit', GETDATA_SKIP: 'skip', GETDATA_ORDER: 'order' };

export interface ReadParameterOptions {
  /** The answer states the total of all matching records (RunConnectionGetData): a page then needs the count capability. */
  total: boolean;
}

/**
 * The read parameters of a request to `system`: each checked, and refused with 422 where the
 * system's connector lacks the capability a parameter needs.
 */
export function parseReadParameters(body: unknown, object: ObjectDescription, system: SystemEntry, options: ReadParameterOptions): ReadParameters {
  const list = body === undefined ? [] : body;
  if (!Array.isArray(list)) {
    throw invalid('', 'The body must be a JSON array of {"name": ..., "value": ...} objects, e.g. [{"name":"GETDATA_LIMIT","value":"10"}].');
  }
  const given = new Map<ReadParameterName, { value: string; index: number }>();
  list.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalid(`/${index}`, 'Each parameter is an object {"name": ..., "value": ...}.');
    const entry = item as Record<string, unknown>;
    const name = entry.name ?? entry.Name;
    const value = entry.value ?? entry.Value;
    if (typeof name !== 'string') throw invalid(`/${index}/name`, 'A parameter needs a string name.');
    const known = readParameterNames.find((n) => n === name.toUpperCase());
    if (!known) {
      throw new HttpProblem('unknown-read-parameter', `Unknown read parameter '${name}'. Known parameters: ${readParameterNames.join(', ')}.`, {
        errors: [{ path: `/${index}/name`, message: `unknown; use one of ${readParameterNames.join(', ')}` }],
      });
    }
    if (given.has(known)) throw invalid(`/${index}/name`, `${known} is given twice.`);
    if (typeof value !== 'string' && typeof value !== 'number') throw invalid(`/${index}/value`, `${known} needs a string value.`);
    given.set(known, { value: String(value), index });
  });
  requireCapabilities(system, capabilityUses(given, options));

  const result: ReadParameters = {};
  const where = given.get('GETDATA_WHERE');
  if (where && where.value.trim() !== '') result.filter = parseFilter(where.value, `/${where.index}/value`);
  const id = given.get('GETDATA_ID');
  if (id) result.id = parseKey(object, id.value, `/${id.index}/value`);
  const limit = given.get('GETDATA_LIMIT');
  if (limit) result.limit = count(limit.value, `/${limit.index}/value`, 'GETDATA_LIMIT');
  const skip = given.get('GETDATA_SKIP');
  if (skip) result.skip = count(skip.value, `/${skip.index}/value`, 'GETDATA_SKIP');
  const order = given.get('GETDATA_ORDER');
  if (order && order.value.trim() !== '') result.order = parseOrderParameter(order.value, `/${order.index}/value`);
  return result;
}

function capabilityUses(given: ReadonlyMap<ReadParameterName, { index: number }>, options: ReadParameterOptions): CapabilityUse[] {
  const uses: CapabilityUse[] = [];
  for (const [name, { index }] of given) {
    const capability = neededCapability[name];
    if (capability !== undefined) uses.push({ capability, asked: name, path: `/${index}/name` });
  }
  const page = given.get('GETDATA_LIMIT') ?? given.get('GETDATA_SKIP');
  if (options.total && page !== undefined) {
    uses.push({ capability: 'count', asked: 'the total of a page', path: `/${page.index}/name`, fix: 'read the page with RunConnectionGetDataMin, which answers no total, or read every record without GETDATA_LIMIT and GETDATA_SKIP' });
  }
  return uses;
}

function parseFilter(text: string, path: string) {
  try {
    const ast = parseExpression(text);
    const placeholder = collectPlaceholders(ast)[0];
    if (placeholder) {
      throw invalid(path, `GETDATA_WHERE has no incoming data to fill #${placeholder.path.join('.')}# from (column ${placeholder.start + 1}); write the value itself.`);
    }
    return ast;
  } catch (error) {
    if (!(error instanceof ExpressionSyntaxError)) throw error;
    throw invalid(path, `GETDATA_WHERE, column ${error.column}: ${error.message}`);
  }
}

function parseOrderParameter(text: string, path: string) {
  try {
    return parseOrder(text);
  } catch (error) {
    if (!(error instanceof OrderSyntaxError)) throw error;
    throw invalid(path, `GETDATA_ORDER, column ${error.offset + 1}: ${error.message}`);
  }
}

function count(text: string, path: string, name: string): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(value)) throw invalid(path, `${name} must be a whole number of 0 or more, not '${text}'.`);
  return value;
}

export function invalid(path: string, message: string, extra: ProblemDetail[] = []): HttpProblem {
  return new HttpProblem('invalid-request', message, { errors: [{ path, message }, ...extra] });
}
