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
import {
  collectFields,
  compareExact,
  evaluateCondition,
  exactDecimal,
  resolvePath,
  type EvaluationScope,
} from '../../definitions/expression/index.js';
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
 * Order of two values of one field: nulls first, then numbers by value, text by UTF-16 code unit —
 * what the sql connector's ORDER BY gives, so orders agree across connectors. Dates and date-times
 * are ISO text in records, whose code unit order is their time order.
 *
 * A field's values are of one kind once decoded, but a value that does not decode to its type
 * stays as it came, so kinds can mix; sort needs a total order even then (else its answer depends
 * on the order records came in). Kinds go in a fixed order — null, booleans (false first),
 * numbers, text, Date objects, anything else by its JSON text — and are never compared as text of
 * one another, which is not transitive (2 < 10 by value, but '10' < '2' as text).
 */
export function compareForOrder(a: unknown, b: unknown): number {
  const left = a ?? null;
  const right = b ?? null;
  if (left === right) return 0;
  const kind = kindRank(left);
  if (kind !== kindRank(right)) return kind < kindRank(right) ? -1 : 1;
  switch (kind) {
    case KIND.boolean:
      return left ? 1 : -1;
    case KIND.number:
      return compareNumbers(left as number | bigint, right as number | bigint);
    case KIND.text:
      return (left as string) < (right as string) ? -1 : 1;
    case KIND.date:
      return compareNumbers((left as Date).getTime(), (right as Date).getTime());
    case KIND.other: {
      const leftText = jsonText(left);
      const rightText = jsonText(right);
      return leftText < rightText ? -1 : leftText > rightText ? 1 : 0;
    }
    default:
      return 0;
  }
}

const KIND = { null: 0, boolean: 1, number: 2, text: 3, date: 4, other: 5 } as const;

function kindRank(value: unknown): number {
  if (value === null) return KIND.null;
  switch (typeof value) {
    case 'boolean':
      return KIND.boolean;
    case 'number':
    case 'bigint':
      return KIND.number;
    case 'string':
      return KIND.text;
    default:
      return value instanceof Date ? KIND.date : KIND.other;
  }
}

/** Numbers by value (a bigint among them), NaN before every other number so that the order stays total. */
function compareNumbers(left: number | bigint, right: number | bigint): number {
  const leftNaN = Number.isNaN(left);
  const rightNaN = Number.isNaN(right);
  if (leftNaN || rightNaN) return leftNaN === rightNaN ? 0 : leftNaN ? -1 : 1;
  return left < right ? -1 : left > right ? 1 : 0;
}

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // A bigint or a cycle inside: JSON has no text for it.
    return String(value);
  }
}

/**
 * Order of two values of an Integer or Number field. A value a double cannot hold is carried as its
 * exact decimal text (field-values.ts: an id past 2^53, a decimal(30,10)), and is ordered as the
 * number it is, exactly, among the field's numbers — not as text after all of them
 * ('9007199254740993' before 1e20, and after 9007199254740992). Two doubles compare as doubles.
 */
function compareNumeric(a: unknown, b: unknown): number {
  if (typeof a !== 'string' && typeof a !== 'bigint' && typeof b !== 'string' && typeof b !== 'bigint') return compareForOrder(a, b);
  const left = exactDecimal(a);
  const right = exactDecimal(b);
  if (left !== null && right !== null) return compareExact(left, right);
  // NaN, Infinity or a value that is no number: numeric text joins the numbers as a double would.
  return compareForOrder(asDouble(a), asDouble(b));
}

function asDouble(value: unknown): unknown {
  return typeof value === 'string' && exactDecimal(value) !== null ? Number(value) : value;
}

function comparison(object: RecordObject, order: readonly OrderTerm[]): (a: RecordData, b: RecordData) => number {
  const terms = order.map((term) => ({ path: term.field, sign: term.direction === 'asc' ? 1 : -1 }));
  for (const key of object.key) {
    if (!terms.some((term) => term.path.length === 1 && term.path[0] === key)) terms.push({ path: [key], sign: 1 });
  }
  const typed = terms.map((term) => {
    const type = resolveFieldPath(object, term.path).field.type;
    return { ...term, compare: type === 'Integer' || type === 'Number' ? compareNumeric : compareForOrder };
  });
  return (a, b) => {
    for (const term of typed) {
      const order = term.compare(resolvePath(a, term.path), resolvePath(b, term.path));
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
