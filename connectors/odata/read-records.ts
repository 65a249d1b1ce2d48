/**
 * Reading an object: the request is checked against the object first (fields of the filter, the
 * order and the id; records/in-memory-read.ts `planMemoryRead`), so a mistake is refused before
 * the service is asked anything. Then:
 *
 * - A read by id alone, where the declared key is the service's key, is `GET Customers(7)`; a 404
 *   is no record.
 * - When the service can say exactly what is asked — the filter compiles exactly and the order has
 *   no group field — the service filters, orders and pages: `$filter`, `$orderby` (the key
 *   appended), `$top` and `$skip` (entity-pages.ts), and the pages go to the caller as they come.
 * - Otherwise the service narrows (the superset `$filter`, ordered by what it can order by) and each
 *   record it sends is checked again with the evaluator; an order by a group field is sorted in
 *   memory, which holds every selected record; skip and limit are then counted in memory.
 *
 * `count` is the service's `/$count` with the same filter when it is exact; otherwise the narrowed
 * records are read and counted with the evaluator.
 */
import type { ReadRequest, RecordData } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { countInMemory, pagesInMemory, planMemoryRead, type MemoryRead } from '../records/in-memory-read.js';
import { checkId } from '../records/record-id.js';
import type { WebClient } from '../web/index.js';
import { decodeEntity } from './decode-entity.js';
import { entityOf, entityPages, type CollectionQuery } from './entity-pages.js';
import { and, filterText, TRUE, type Condition } from './filter/filter-condition.js';
import { keyPredicate } from './odata-literals.js';
import type { BoundObject } from './object-model.js';
import { filterCondition, idCondition, keyOrder, orderBy, selectOptions } from './record-query.js';

export interface ReadScope {
  web: WebClient;
  bound: BoundObject;
  /** Most entities asked for in one request (connection.maxPageSize). */
  maxPageSize: number;
}

interface ReadPlan {
  memory: MemoryRead;
  condition: Condition;
  id: Record<string, unknown> | undefined;
  /** `$orderby`, or undefined when the order is made in memory. */
  order: string | undefined;
}

function plan(scope: ReadScope, request: ReadRequest): ReadPlan {
  const memory = planMemoryRead(scope.bound.object, request);
  const id = request.id === undefined ? undefined : checkId(scope.bound.object, request.id);
  const filter = filterCondition(scope.bound, request);
  const condition = id === undefined ? filter : and([idCondition(scope.bound, id), filter]);
  return { memory, condition, id, order: orderBy(scope.bound, request.order) };
}

/** The object's entity set as entityPages reads it, its entities known by the service's key. */
function collection(bound: BoundObject): Omit<CollectionQuery, 'options'> {
  return { path: bound.entitySet, object: bound.object.name, key: bound.serviceKey.map((part) => part.name) };
}

function decodedPages(scope: ReadScope, pages: AsyncIterable<Array<Record<string, unknown>>>): AsyncGenerator<RecordData[]> {
  const { bound } = scope;
  return (async function* () {
    for await (const entities of pages) yield entities.map((entity) => decodeEntity(bound, entity));
  })();
}

/** The record of `Set(key)`, or none for a 404. */
async function readByKey(scope: ReadScope, id: Record<string, unknown>, signal?: AbortSignal): Promise<RecordData | undefined> {
  const { web, bound } = scope;
  const response = await web.request({
    path: `${bound.entitySet}${keyPredicate(bound.serviceKey, id)}`,
    query: selectOptions(bound),
    ...(signal ? { signal } : {}),
  });
  if (response.status === 404) return undefined;
  if (!response.ok) throw response.failure();
  return decodeEntity(bound, entityOf(web, response));
}

export async function* readRecords(scope: ReadScope, request: ReadRequest = {}): AsyncGenerator<RecordData[]> {
  const planned = plan(scope, request);
  const { memory, condition, order } = planned;
  const { pageSize, skip, limit } = memory.window;
  const { signal } = request;
  // Nothing can match (a comparison with a missing placeholder, a date that no date equals): no request.
  if (limit === 0 || (condition.kind === 'constant' && !condition.value)) return;
  if (planned.id !== undefined && request.filter === undefined && scope.bound.keyIsServiceKey) {
    const record = skip === 0 ? await readByKey(scope, planned.id, signal) : undefined;
    if (record !== undefined) yield [record];
    return;
  }
  const options = { ...selectOptions(scope.bound), ...(condition === TRUE ? {} : { $filter: filterText(condition) }) };
  if (condition.exact && order !== undefined) {
    const window = { skip, limit, pageSize: Math.min(pageSize, scope.maxPageSize), ...(signal ? { signal } : {}) };
    const pages = entityPages(scope.web, { ...collection(scope.bound), options: { ...options, $orderby: order } }, window);
    // Pages of the service's size are regrouped into the caller's (they differ when maxPageSize is smaller).
    yield* pagesInMemory(
      decodedPages(scope, pages),
      { ...memory, selects: () => true, compare: undefined, window: { pageSize, skip: 0, limit } },
      signal,
    );
    return;
  }
  const narrowed = entityPages(
    scope.web,
    { ...collection(scope.bound), options: { ...options, $orderby: order ?? keyOrder(scope.bound) } },
    { skip: 0, limit: Number.POSITIVE_INFINITY, pageSize: scope.maxPageSize, ...(signal ? { signal } : {}) },
  );
  const selects = condition.exact ? () => true : memory.selects;
  yield* pagesInMemory(
    decodedPages(scope, narrowed),
    { ...memory, selects, compare: order === undefined ? memory.compare : undefined },
    signal,
  );
}

/** How many records the filter selects. */
export async function countRecords(
  scope: ReadScope,
  request: Pick<ReadRequest, 'filter' | 'placeholders' | 'signal'> = {},
): Promise<number> {
  const { memory, condition } = plan(scope, request);
  const { signal } = request;
  if (condition.kind === 'constant' && !condition.value) return 0;
  if (condition.exact) {
    const response = await scope.web.request({
      path: `${scope.bound.entitySet}/$count`,
      ...(condition === TRUE ? {} : { query: { $filter: filterText(condition) } }),
      accept: 'text/plain',
      ...(signal ? { signal } : {}),
    });
    if (!response.ok) throw response.failure();
    const text = response.text().trim();
    const count = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (Number.isSafeInteger(count)) return count;
    throw new ConnectorError(
      'unavailable',
      `system '${scope.bound.systemId}' answered ${scope.bound.entitySet}/$count with something that is not a count`,
      {
        cause: response.failure().cause,
        details: { system: scope.bound.systemId, status: response.status },
      },
    );
  }
  const narrowed = entityPages(
    scope.web,
    {
      ...collection(scope.bound),
      options: { ...selectOptions(scope.bound), $filter: filterText(condition), $orderby: keyOrder(scope.bound) },
    },
    { skip: 0, limit: Number.POSITIVE_INFINITY, pageSize: scope.maxPageSize, ...(signal ? { signal } : {}) },
  );
  return countInMemory(decodedPages(scope, narrowed), memory, signal);
}
