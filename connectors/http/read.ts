/**
 * Reading an object: its list, page by page as the API pages it, narrowed by the declared filter
 * parameters and sorted by the declared sort where they apply, every record decoded to its
 * declared types and then selected, ordered and paged in memory exactly as the JS evaluator
 * decides (records/in-memory-read.ts) — the API's parameters only save fetching.
 *
 * What goes to the API and what is done here:
 * - filter: the terms filter-mapping.ts allows become parameters; every record is checked anyway.
 * - order: the `sort` parameters when they give the whole order (sort-mapping.ts), and the answer
 *   is checked to come in that order; otherwise every selected record is held and sorted here.
 * - skip, limit, pageSize: to the API's paging (offset or page number, page size, stopping early)
 *   only when nothing is filtered or sorted here, since records dropped or moved here would shift
 *   them; otherwise they are counted here as the records stream by (a limit still stops reading).
 * - id: a GET of the object's `get` path (404: none), or else the list narrowed by the key's `=`
 *   parameters and searched.
 *
 * Pages stream: without an in-memory order, one page of the API is held at a time. A record whose
 * key the read passed on already is passed over, and pages that keep bringing records sent already
 * stop the read (records/repeated-records.ts has the rule): an API ignoring its paging would
 * otherwise be read until the sync's time limit.
 */
import type { PlaceholderValues, ReadRequest, RecordData } from '../connection.js';
import type { ConnectorError } from '../connector-error.js';
import { countInMemory, pagesInMemory, planMemoryRead, type MemoryRead } from '../records/in-memory-read.js';
import { checkId } from '../records/record-id.js';
import { describeKey, RepeatedRecords, type RepeatedPage } from '../records/repeated-records.js';
import type { WebClient, WebResponse } from '../web/index.js';
import { equalityParameters, filterParameters } from './filter-mapping.js';
import type { HttpObject, Paging } from './http-object.js';
import { getRecord, listPage, mismatch, type AnswerContext } from './list-answer.js';
import { Pager, PagingLoopError, PagingSizeError, type PageRequest, type PagerWindow } from './pager.js';
import { fillPathTemplate } from './path-template.js';
import { recordReader } from './record-json.js';
import { sortParameters } from './sort-mapping.js';

export interface ObjectScope {
  web: WebClient;
  systemId: string;
  object: HttpObject;
}

type Query = Record<string, string | number | boolean | string[]>;

/** One request of the list, answered 2xx; a 404 of the list's own path means the path is wrong. */
async function askList(
  scope: ObjectScope,
  request: PageRequest,
  query: Query,
  signal: AbortSignal | undefined,
): Promise<{ response: WebResponse; context: AnswerContext }> {
  const { web, object, systemId } = scope;
  const path = object.list.path.text;
  const response =
    request.url === undefined
      ? await web.request({ path, query: { ...object.list.query, ...query, ...request.query }, ...(signal ? { signal } : {}) })
      : await web.request({ path: request.url, ...(signal ? { signal } : {}) });
  const context: AnswerContext = { systemId, object, request: `GET ${new URL(response.url).pathname}` };
  if (response.status === 404 && request.url === undefined) {
    throw mismatch(context, `with HTTP 404: there is no collection at objects.${object.name}.list.path (${path})`);
  }
  if (!response.ok) throw response.failure();
  return { response, context };
}

/** The list's records as the API gives them, page by page, as `query` narrows and sorts them and `window` pages them. */
export async function* listAnswers(
  scope: ObjectScope,
  query: Query,
  window: PagerWindow,
  signal?: AbortSignal,
): AsyncGenerator<Array<Record<string, unknown>>> {
  const { object } = scope;
  const pager = new Pager(object.paging, window);
  const repeats = new RepeatedRecords(object.key);
  let request: PageRequest | undefined = pager.first();
  let first = true;
  while (request !== undefined) {
    signal?.throwIfAborted();
    const { response, context } = await askList(scope, request, query, signal);
    const page = await listPage(object, response, context);
    // An API that ignores the paging parameters answers the same records again and again; the
    // pager still counts every record received, since offsets and ends are positions in the list.
    const received = first && pager.drop > 0 ? page.records.slice(pager.drop) : page.records;
    yield repeats.fresh(received, (repeat) => repeatedRecords(context, repeat));
    first = false;
    try {
      request = pager.next({ count: page.records.length, total: page.total, cursor: page.cursor, next: page.next });
    } catch (error) {
      if (error instanceof PagingLoopError) {
        throw mismatch(context, `with paging that goes round in a circle (${error.message}); check objects.${object.name}.paging`, error);
      }
      if (error instanceof PagingSizeError) {
        throw mismatch(
          context,
          `with pages of another size than asked (${error.message}), so a skip cannot be reached by page numbers; set objects.${object.name}.paging.pageSize to at most the API's page size`,
          error,
        );
      }
      throw error;
    }
  }
}

/** Why an API would repeat its records, for the message: the paging it seems to ignore. */
function pagingCause(paging: Paging): string {
  switch (paging.style) {
    case 'offset':
      return `as if it ignored the ${paging.offsetParam} parameter`;
    case 'page':
      return `as if it ignored the ${paging.pageParam} parameter`;
    case 'cursor':
      return `as if it ignored the ${paging.cursorParam} parameter`;
    // none: one request, so never a page after another.
    case 'link':
    case 'none':
      return 'as if its next links led back to records it had sent';
  }
}

function repeatedRecords(context: AnswerContext, repeat: RepeatedPage): ConnectorError {
  const { object } = context;
  const named = repeat.key === undefined ? 'records without a key value' : `the first ${describeKey(object.name, object.key, repeat.key)}`;
  return mismatch(
    context,
    `with records it had sent already, page after page (${repeat.repeated} of the ${repeat.count} of the last page, ${named}), ${pagingCause(object.paging)}, or objects.${object.name}.paging is not how it pages`,
    undefined,
    { reason: 'repeated-records' },
  );
}

/** The list's records decoded, page by page. */
async function* listRecords(scope: ObjectScope, query: Query, window: PagerWindow, signal?: AbortSignal): AsyncGenerator<RecordData[]> {
  const read = recordReader(scope.object);
  for await (const page of listAnswers(scope, query, window, signal)) yield page.map(read);
}

/** The record the object's `get` answers for these key values, as the API gives it; undefined for a 404. */
export async function getByKey(
  scope: ObjectScope,
  key: Readonly<Record<string, unknown>>,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | undefined> {
  const { web, object, systemId } = scope;
  const get = object.get!;
  const path = fillPathTemplate(get.path, key, { object: object.name, operation: 'get' });
  const response = await web.request({ path, query: get.query, ...(signal ? { signal } : {}) });
  if (response.status === 404) return undefined;
  if (!response.ok) throw response.failure();
  return getRecord(object, response, { systemId, object, request: `GET ${new URL(response.url).pathname}` });
}

/** The record of `id` by the object's `get`: one page of one record, or none. */
async function* recordById(scope: ObjectScope, id: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<RecordData[]> {
  const raw = await getByKey(scope, id, signal);
  if (raw !== undefined) yield [recordReader(scope.object)(raw)];
}

/** Fails the read when a record comes before the one before it in the order the API was asked for. */
async function* checkedOrder(
  source: AsyncIterable<RecordData[]>,
  compare: (a: RecordData, b: RecordData) => number,
  context: AnswerContext,
): AsyncGenerator<RecordData[]> {
  let previous: RecordData | undefined;
  for await (const page of source) {
    for (const record of page) {
      if (previous !== undefined && compare(previous, record) > 0) {
        throw mismatch(
          context,
          `in another order than Syncline sorts: objects.${context.object.name}.sort.fields names a field the API sorts otherwise (nulls, case, collation); take it out, and the order is made in memory`,
        );
      }
      previous = record;
    }
    yield page;
  }
}

/** The query of the read's filter (and id), narrowing what the list answers. */
function narrowing(object: HttpObject, request: Pick<ReadRequest, 'filter' | 'placeholders' | 'id'>): Query {
  const placeholders: PlaceholderValues = request.placeholders ?? (() => undefined);
  const byFilter = filterParameters(object, object.filters, request.filter, placeholders);
  const byId = request.id === undefined ? {} : equalityParameters(object, object.filters, checkId(object, request.id));
  return { ...byId, ...byFilter };
}

export async function* readPages(scope: ObjectScope, request: ReadRequest): AsyncGenerator<RecordData[]> {
  const { object } = scope;
  // Every name the request uses is checked before the API is asked anything.
  const plan = planMemoryRead(object, request);
  const { signal } = request;
  if (plan.window.limit === 0) return;
  if (request.id !== undefined && object.get !== undefined) {
    yield* pagesInMemory(recordById(scope, checkId(object, request.id), signal), plan, signal);
    return;
  }
  const order = request.order ?? [];
  const sorted = sortParameters(object.sort, order, object.key);
  const selectedHere = request.filter !== undefined || request.id !== undefined;
  const pushWindow = !selectedHere && (order.length === 0 || sorted !== undefined);
  const skipped = pushWindow && (object.paging.style === 'offset' || object.paging.style === 'page') ? plan.window.skip : 0;
  const window: PagerWindow = {
    size: pushWindow ? Math.min(object.paging.pageSize, plan.window.pageSize) : object.paging.pageSize,
    start: skipped,
    // Records skipped here still come from the API.
    want: pushWindow ? plan.window.limit + plan.window.skip - skipped : Number.POSITIVE_INFINITY,
  };
  let source: AsyncIterable<RecordData[]> = listRecords(scope, { ...narrowing(object, request), ...sorted }, window, signal);
  if (sorted !== undefined && plan.compare !== undefined) {
    source = checkedOrder(source, plan.compare, { systemId: scope.systemId, object, request: `GET ${object.list.path.text}` });
  }
  const here: MemoryRead = {
    ...plan,
    compare: sorted === undefined ? plan.compare : undefined,
    window: { ...plan.window, skip: plan.window.skip - skipped },
  };
  yield* pagesInMemory(source, here, signal);
}

export async function countRecords(scope: ObjectScope, request: Pick<ReadRequest, 'filter' | 'placeholders' | 'signal'>): Promise<number> {
  const { object } = scope;
  const plan = planMemoryRead(object, request);
  const { signal } = request;
  if (request.filter === undefined && object.total !== undefined) {
    const total = await askTotal(scope, signal);
    if (total !== undefined) return total;
  }
  return countInMemory(
    listRecords(scope, narrowing(object, request), { size: object.paging.pageSize, start: 0, want: Infinity }, signal),
    plan,
    signal,
  );
}

/** The total the API tells with a page of one record; undefined when its answer does not tell it. */
async function askTotal(scope: ObjectScope, signal: AbortSignal | undefined): Promise<number | undefined> {
  const first = new Pager(scope.object.paging, { size: 1, start: 0, want: 1 }).first();
  const { response, context } = await askList(scope, first, {}, signal);
  return (await listPage(scope.object, response, context)).total;
}
