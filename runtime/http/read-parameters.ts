/**
 * The read parameter array of RunConnectionGetData(Min): `[{name, value}]` with the names
 * GETDATA_WHERE, GETDATA_ID, GETDATA_LIMIT, GETDATA_SKIP and GETDATA_ORDER. Its shape is a JSON
 * Schema (body-schema.ts) the interface description publishes; names are matched
 * case-insensitively, and anything else is a 400 naming the known ones. What the shape cannot say
 * is checked here after: a name given twice, the values against the object, and whether the
 * system's connector can do what a parameter asks (422 naming the capability).
 */
import type { ReadRequest } from '../../connectors/connection.js';
import type { ObjectDescription } from '../../connectors/connection.js';
import {
  collectPlaceholders,
  ExpressionSyntaxError,
  parseExpression,
  valueAsCondition,
  valueAsConditionProblem,
} from '../../definitions/expression/index.js';
import type { FieldType } from '../../definitions/types.js';
import { OrderSyntaxError, parseOrder } from '../../definitions/order/parse-order.js';
import { HttpProblem, type ProblemDetail } from '../errors.js';
import { parseKey } from '../sync/record-key.js';
import type { SystemEntry } from '../../definitions/snapshot.js';
import { requestBody, type Finding } from './body-schema.js';
import { requireCapabilities, type Capability, type CapabilityUse } from './require-capability.js';

export const readParameterNames = ['GETDATA_WHERE', 'GETDATA_ID', 'GETDATA_LIMIT', 'GETDATA_SKIP', 'GETDATA_ORDER'] as const;
type ReadParameterName = (typeof readParameterNames)[number];

const known = readParameterNames.join(', ');

/** The body of RunConnectionGetData(Min), as ajv checks it and the interface description shows it. */
export const readParametersBody = requestBody<Array<{ name: ReadParameterName; value: string | number }>>(
  {
    type: 'array',
    // Five names, each given once (a name given twice is named below): room for slips, not for 70,000 entries.
    maxItems: 20,
    description:
      "Read parameters: GETDATA_WHERE (filter, SQL-like or OData), GETDATA_ID, GETDATA_LIMIT, GETDATA_SKIP, GETDATA_ORDER; names and properties in any case. LIMIT, SKIP and ORDER apply where the system's connector has the capability limit, skip or order (422 naming it otherwise); a page (LIMIT or SKIP) of RunConnectionGetData, which answers the total, also needs count.",
    items: {
      type: 'object',
      required: ['name', 'value'],
      properties: { name: { enum: [...readParameterNames] }, value: { type: ['string', 'number'] } },
      additionalProperties: false,
    },
  },
  { message: readParameterMessage, code: (findings) => (findings.some(isUnknownName) ? 'unknown-read-parameter' : 'invalid-request') },
);

function isUnknownName(finding: Finding): boolean {
  return finding.keyword === 'enum' && /^\/\d+\/name$/.test(finding.path) && typeof finding.value === 'string';
}

/** The words the route has always used for a parameter list, naming the known parameters and the fix. */
function readParameterMessage(finding: Finding): string {
  const { path, value, body } = finding;
  if (path === '' && finding.keyword !== 'maxItems')
    return 'The body must be a JSON array of {"name": ..., "value": ...} objects, e.g. [{"name":"GETDATA_LIMIT","value":"10"}].';
  if (/^\/\d+$/.test(path)) return 'Each parameter is an object {"name": ..., "value": ...}.';
  if (isUnknownName(finding)) return `Unknown read parameter '${String(value)}'. Known parameters: ${known}.`;
  if (path.endsWith('/name') && finding.keyword !== 'twice') return `A parameter needs a string name: one of ${known}.`;
  const item = /^\/(\d+)\/value$/.exec(path);
  if (item !== null) {
    const name = (body as Array<{ name?: unknown }>)[Number(item[1])]?.name;
    return `${typeof name === 'string' ? name : 'A parameter'} needs a string value.`;
  }
  return finding.message;
}

export interface ReadParameters extends Pick<ReadRequest, 'filter' | 'id' | 'limit' | 'skip' | 'order'> {}

/** The connector capability each parameter needs (GETDATA_WHERE needs none: without push-down the connector filters in memory). */
const neededCapability: Partial<Record<ReadParameterName, Capability>> = {
  GETDATA_LIMIT: 'limit',
  GETDATA_SKIP: 'skip',
  GETDATA_ORDER: 'order',
};

export interface ReadParameterOptions {
  /** The answer states the total of all matching records (RunConnectionGetData): a page then needs the count capability. */
  total: boolean;
}

/**
 * The read parameters of a request to `system`: each checked, and refused with 422 where the
 * system's connector lacks the capability a parameter needs.
 */
export function parseReadParameters(
  body: unknown,
  object: ObjectDescription,
  system: SystemEntry,
  options: ReadParameterOptions,
): ReadParameters {
  const list = readParametersBody.parse(body === undefined ? [] : body);
  const given = new Map<ReadParameterName, { value: string; index: number }>();
  list.forEach(({ name, value }, index) => {
    if (given.has(name)) throw invalid(`/${index}/name`, `${name} is given twice.`);
    given.set(name, { value: String(value), index });
  });
  requireCapabilities(system, capabilityUses(given, options));

  const result: ReadParameters = {};
  const where = given.get('GETDATA_WHERE');
  if (where && where.value.trim() !== '') result.filter = parseFilter(where.value, `/${where.index}/value`, object);
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
    uses.push({
      capability: 'count',
      asked: 'the total of a page',
      path: `/${page.index}/name`,
      fix: 'read the page with RunConnectionGetDataMin, which answers no total, or read every record without GETDATA_LIMIT and GETDATA_SKIP',
    });
  }
  return uses;
}

function parseFilter(text: string, path: string, object: ObjectDescription) {
  try {
    const ast = parseExpression(text);
    const placeholder = collectPlaceholders(ast)[0];
    if (placeholder) {
      throw invalid(
        path,
        `GETDATA_WHERE has no incoming data to fill #${placeholder.path.join('.')}# from (column ${placeholder.start + 1}); write the value itself.`,
      );
    }
    const typeOf = (field: readonly string[]) => fieldTypeOf(object, field);
    const value = valueAsCondition(ast, typeOf);
    if (value !== undefined) throw invalid(path, `GETDATA_WHERE, column ${value.start + 1}: ${valueAsConditionProblem(value, typeOf)}.`);
    return ast;
  } catch (error) {
    if (!(error instanceof ExpressionSyntaxError)) throw error;
    throw invalid(path, `GETDATA_WHERE, column ${error.column}: ${error.message}`);
  }
}

/** The type of a field path of the object (`name`, `group.type.field`); undefined for what it lacks (refused later, naming its fields). */
function fieldTypeOf(object: ObjectDescription, path: readonly string[]): FieldType | undefined {
  if (path.length === 1) return object.fields.find((field) => field.name === path[0])?.type;
  const group = path.length === 3 ? object.groups.find((candidate) => candidate.name === path[0]) : undefined;
  return group?.types.includes(path[1]!) ? group.fields.find((field) => field.name === path[2])?.type : undefined;
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
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(value))
    throw invalid(path, `${name} must be a whole number of 0 or more, not '${text}'.`);
  return value;
}

export function invalid(path: string, message: string, extra: ProblemDetail[] = []): HttpProblem {
  return new HttpProblem('invalid-request', message, { errors: [{ path, message }, ...extra] });
}
