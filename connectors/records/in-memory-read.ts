/**
 * Filtering, ordering and paging records in memory, for connectors whose systems cannot do it
 * themselves (a file) or can do only part of it (a REST API that filters by some fields): the
 * connector streams the records it has, decoded to their declared types, and this module selects
 * what the request asks for exactly as the JS evaluator decides conditions everywhere else
 * (definitions/expression/evaluate.ts) — the same answer a pushed-down filter must give.
 *
 * Field paths of the filter, the order and the id are checked against the object first, so an
 * undeclared field is refused ('unknown-field') before any record is read, as by every connector.
 *
 * Memory: without an order, records pass through page by page (skip and limit counted as they
 * go), so reading a large source holds one page. An order needs every selected record before
 * the first can be given: they are held and sorted, which the connector's docs say.
 */
import { collectFields, evaluateCondition, resolvePath, type EvaluationScope } from '../../definitions/expression/index.js';
import type { OrderTerm } from '../../definitions/order/parse-order.js';
import type { ReadRequest, RecordData } from '../connection.js';
import { sameFieldValue } from './field-values.js';
import { resolveFieldPath, type RecordObject } from './object-model.js';
import { readWindow, type ReadWindow } from './read-window.js';
import { checkId } from './record-id.js';

export interface MemoryRead {
  /** Whether a record is one the request selects (its filter and id). */
  selects(record: RecordData): boolean;
  /** The request's order as a comparison, ties broken by the key; undefined when it sets none. */
  compare: ((a: RecordData, b: RecordData) => number) | undefined;
  window: ReadWindow;
}

/**
 * Order of two values of one field: nulls first, then numbers and booleans by value, text by
 * UTF-16 code unit — what the sql connector's ORDER BY gives, so orders agree across connectors.
 * Dates and date-times are ISO text in records, whose code unit order is their time order.
 */
export function compareForOrder(a: unknown, b: unknown): number {
  const left = a ?? null;
  const right = b ?? null;
  if (left === right) return 0;
  if (left === null) return -1;
  if (right === null) return 1;
  if ((typeof left === 'number' || typeof left === 'boolean') && (typeof right === 'number' || typeof right === 'boolean')) {
    return Number(left) - Number(right);
  }
  const leftText = typeof left === 'object' ? JSON.stringify(left) : String(left);
  const rightText = typeof right === 'object' ? JSON.stringify(right) : String(right);
  return leftText < rightText ? -1 : leftText > rightText ? 1 : 0;
}

function comparison(object: RecordObject, order: readonly OrderTerm[]): (a: RecordData, b: RecordData) => number {
  const terms = order.map((term) => ({ path: term.field, sign: term.direction === 'asc' ? 1 : -1 }));
  for (const key of object.key) {
    if (!terms.some((term) => term.path.length === 1 && term.path[0] === key)) terms.push({ path: [key], sign: 1 });
  }
  return (a, b) => {
    for (const term of terms) {
      const order = compareForOrder(resolvePath(a, term.path), resolvePath(b, term.path));
      if (order !== 0) return term.sign * order;
    }
    return 0;
  };
}

/** Checks the request against the object and says how to select, order and page in memory. */
export function planMemoryRead(object: RecordObject, request: ReadRequest = {}): MemoryRead {
  const window = readWindow(request);
  for (const reference of request.filter === undefined ? [] : collectFields(request.filter)) resolveFieldPath(object, reference.path);
  for (const term of request.order ?? []) resolveFieldPath(object, term.field);
  const id = request.id === undefined ? undefined : checkId(object, request.id);
  const filter = request.filter;
  const placeholders = request.placeholders ?? (() => undefined);
  const selects = (record: RecordData): boolean => {
    if (id !== undefined && !object.key.every((name) => sameFieldValue(record[name], id[name]))) return false;
    if (filter === undefined) return true;
    const scope: EvaluationScope = { field: (path) => resolvePath(record, path), placeholder: placeholders };
    return evaluateCondition(filter, scope);
  };
  const order = request.order ?? [];
  return { selects, compare: order.length > 0 ? comparison(object, order) : undefined, window };
}

/**
 * The selected records of `source` (pages of records as the system has them) in pages of the
 * window's size, after its skip and up to its limit. Stops reading the source once the limit is
 * reached, and when the request's signal is aborted.
 */
export async function* pagesInMemory(
  source: AsyncIterable<readonly RecordData[]>,
  plan: MemoryRead,
  signal?: AbortSignal,
): AsyncGenerator<RecordData[]> {
  const { pageSize, skip, limit } = plan.window;
  if (limit === 0) return;
  let passed = 0;
  let given = 0;
  let page: RecordData[] = [];
  let pages: AsyncIterable<readonly RecordData[]> | Iterable<readonly RecordData[]> = source;
  if (plan.compare !== undefined) {
    const selected: RecordData[] = [];
    for await (const records of source) {
      signal?.throwIfAborted();
      for (const record of records) if (plan.selects(record)) selected.push(record);
    }
    selected.sort(plan.compare);
    pages = [selected];
  }
  for await (const records of pages) {
    signal?.throwIfAborted();
    for (const record of records) {
      if (!plan.selects(record)) continue;
      if (passed < skip) {
        passed += 1;
        continue;
      }
      page.push(record);
      given += 1;
      if (page.length === pageSize) {
        yield page;
        signal?.throwIfAborted();
        page = [];
      }
      if (given >= limit) break;
    }
    if (given >= limit) break;
  }
  if (page.length > 0) yield page;
}

/** How many records of `source` the plan selects. */
export async function countInMemory(source: AsyncIterable<readonly RecordData[]>, plan: MemoryRead, signal?: AbortSignal): Promise<number> {
  let count = 0;
  for await (const records of source) {
    signal?.throwIfAborted();
    for (const record of records) if (plan.selects(record)) count += 1;
  }
  return count;
}
