/**
 * A sync's source as a stream of pages of `batchSize` records, never the whole source in memory:
 * an object of a system (connection.read, keyset-paged by the connector), a named query (limit and
 * skip: one free query per page, of at most the system's limits.queryRows rows), or the sync's own
 * record store (keyset pages of readRecords).
 *
 * The filter is the sync's `where` AND the start's WhereClause; `#params.Name#` placeholders take
 * the start's ActionParams. An ad-hoc start (sourceId) reads that one record, still under the
 * filter: a sync that only moves active customers does not move an inactive one because a webhook
 * named it.
 *
 * Ad-hoc source ids:
 * - object: the key value; a composite key as GETDATA_ID takes it (record-key.ts): a JSON object
 *   (`{"order":7,"line":2}`) or the values in key order separated by commas (`7,2`). The connector
 *   converts each value to its key field's type; one that does not fit fails the run, not retried.
 * - query: the value of the query's first column (queries have no declared key).
 * - record store: the record's GUID.
 *
 * Given records (a webhook's saveWithSync hands its request's records over in memory) replace the
 * source: they pass the filter in memory, as record-store records do, and their source ids are
 * their 1-based positions.
 */
import type { Connection, PlaceholderValues, ReadReceipt, RecordData } from '../../connectors/connection.js';
import type { Snapshot, SyncEntry } from '../../definitions/snapshot.js';
import { systemLimits } from '../../definitions/system-limits.js';
import type { FieldType } from '../../definitions/types.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import {
  doubleHolds,
  evaluateCondition,
  numberFromText,
  resolvePath,
  type AndNode,
  type Expression,
} from '../../definitions/expression/index.js';
import { parseKey } from './record-key.js';
import { readRecords, readRecordsByGuid, type RecordCursor } from '../record-store/read-records.js';
import { RunStop } from './run-report.js';

/** One source record, with what names it in errors (its key, first column or GUID). */
export interface SourceRecord {
  record: RecordData;
  sourceId: string | undefined;
  /** Set for a record-store record. */
  guid?: string;
  /** Its place among the records the run read, from 1; set by the run as it takes the page. */
  position?: number;
}

export interface SourceRequest {
  snapshot: Snapshot;
  sync: SyncEntry;
  /** The source system's connection; absent for a record-store source. */
  connection: Connection | undefined;
  /** The runtime database; needed for a record-store source only. */
  db: RuntimeDatabase | undefined;
  filter: Expression | undefined;
  placeholders: PlaceholderValues;
  sourceId: string | undefined;
  signal: AbortSignal | undefined;
  /** Records to use instead of reading the source. */
  records?: ReadonlyArray<RecordData>;
  /** A cursor run's field (sync-cursor.ts), told to an object's connector as the read's range. */
  rangeField?: string;
  /** Handed to the object read, for the connector to note what it read to the end (Connection.settle). */
  receipt?: ReadReceipt;
}

/** `a AND b`, either optional; the node range is meaningless here (nothing reports positions). */
export function andFilters(a: Expression | undefined, b: Expression | undefined): Expression | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const node: AndNode = { type: 'and', operands: [a, b], start: 0, end: 0 };
  return node;
}

export function sourcePages(request: SourceRequest): AsyncIterable<SourceRecord[]> {
  const source = request.sync.definition.source;
  if (request.records !== undefined) return givenPages(request, request.records);
  if (source.recordStore) return recordStorePages(request);
  if (source.query !== undefined) return queryPages(request, source.query);
  return objectPages(request, source.object!);
}

async function* objectPages(request: SourceRequest, object: string): AsyncGenerator<SourceRecord[]> {
  const connection = request.connection!;
  const description = connection.describe(object);
  let id: Record<string, unknown> | undefined;
  if (request.sourceId !== undefined) {
    try {
      id = parseKey(description, request.sourceId, 'sourceId');
    } catch (error) {
      throw new RunStop(`source id '${request.sourceId}': ${(error as Error).message}`, false, { cause: error });
    }
  }
  const key = description.key;
  const sourceIdOf = (record: RecordData): string => key.map((field) => String(record[field] ?? '')).join(',');
  const pages = connection.read(object, {
    ...(request.filter === undefined ? {} : { filter: request.filter, placeholders: request.placeholders }),
    ...(id === undefined ? {} : { id, limit: 1 }),
    ...(request.sync.order === undefined ? {} : { order: request.sync.order }),
    ...(request.rangeField === undefined || id !== undefined ? {} : { rangeField: request.rangeField }),
    pageSize: request.sync.definition.batchSize,
    ...(request.signal === undefined ? {} : { signal: request.signal }),
    ...(request.receipt === undefined ? {} : { receipt: request.receipt }),
  });
  for await (const page of pages) yield page.map((record) => ({ record, sourceId: sourceIdOf(record) }));
}

/**
 * A source id as a value of a query column's type, so the database compares like with like; an id
 * a double cannot hold (past 2^53) stays its text, which the comparison binds exactly.
 */
function typedSourceId(type: FieldType | undefined, text: string): unknown {
  if (type !== 'Integer' && type !== 'Number') return text;
  const number = numberFromText(text.trim());
  return number !== null && doubleHolds(number, text) ? number : text;
}

async function* queryPages(request: SourceRequest, name: string): AsyncGenerator<SourceRecord[]> {
  const { sync, connection } = request;
  const systemId = sync.definition.source.system!;
  const query = request.snapshot.systems.get(systemId)!.definition.queries[name]!;
  const first = query.columns[0];
  let filter = request.filter;
  let placeholders = request.placeholders;
  if (request.sourceId !== undefined && first !== undefined) {
    // The source id compares with the first column through a placeholder of its own, so it is bound.
    const sourceValue = typedSourceId(first.type, request.sourceId);
    const path = ['\u0000sourceId'];
    filter = andFilters(filter, {
      type: 'compare',
      op: '=',
      left: { type: 'field', path: [first.name], start: 0, end: 0 },
      right: { type: 'placeholder', path, start: 0, end: 0 },
      start: 0,
      end: 0,
    });
    const outer = placeholders;
    placeholders = (p) => (p.length === 1 && p[0] === path[0] ? sourceValue : outer(p));
  }
  if (filter !== undefined && !query.statement.includes('#FlowFilter#')) {
    throw new RunStop(
      `query ${systemId}/${name} has no #FlowFilter#, so the sync's where, the WhereClause or the source id cannot filter it`,
      false,
    );
  }
  // A page is one free query, so it stays within the system's limits.queryRows; a page over
  // limits.queryBytes (very wide rows) ends the run with the connector's error naming that limit —
  // retrying would meet it again: lower batchSize or raise the limit.
  const batchSize = Math.min(sync.definition.batchSize, systemLimits(request.snapshot.systems.get(systemId)!.definition).queryRows);
  for (let skip = 0; ; skip += batchSize) {
    request.signal?.throwIfAborted();
    const { rows } = await connection!.query({
      statement: query.statement,
      columns: query.columns,
      ...(filter === undefined ? {} : { filter, placeholders }),
      limit: batchSize,
      skip,
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (rows.length > 0)
      yield rows.map((record) => ({ record, sourceId: first === undefined ? undefined : String(record[first.name] ?? '') }));
    if (rows.length < batchSize) return;
  }
}

/**
 * A filter over records in memory: they have no connector to push it to. `syncline test`'s filter
 * cases judge a record with it too.
 */
export function memoryFilter(filter: Expression | undefined, placeholders: PlaceholderValues): (record: RecordData) => boolean {
  if (filter === undefined) return () => true;
  return (record) => evaluateCondition(filter, { field: (path) => resolvePath(record, path), placeholder: placeholders });
}

async function* givenPages(request: SourceRequest, records: ReadonlyArray<RecordData>): AsyncGenerator<SourceRecord[]> {
  const passes = memoryFilter(request.filter, request.placeholders);
  const batchSize = request.sync.definition.batchSize;
  const numbered = records.map((record, index) => ({ record, sourceId: String(index + 1) })).filter((source) => passes(source.record));
  for (let at = 0; at < numbered.length; at += batchSize) yield numbered.slice(at, at + batchSize);
}

async function* recordStorePages(request: SourceRequest): AsyncGenerator<SourceRecord[]> {
  const { db, sync, filter, placeholders } = request;
  if (db === undefined)
    throw new RunStop(`the record store of ${sync.definition.id} is in the runtime database, and none was given`, false);
  const syncId = sync.definition.id;
  // Stored records have no declared shape and no connector to push a filter to: filtered here.
  const scope = { field: (_path: readonly string[]) => undefined as unknown, placeholder: placeholders };
  const passes = (record: RecordData): boolean =>
    filter === undefined || evaluateCondition(filter, { ...scope, field: (path) => resolvePath(record, path) });
  const toSource = (stored: { guid: string; record: RecordData }): SourceRecord => ({
    record: stored.record,
    sourceId: stored.guid,
    guid: stored.guid,
  });
  if (request.sourceId !== undefined) {
    const found = await readRecordsByGuid(db, [request.sourceId], syncId);
    const records = found.filter((stored) => passes(stored.record)).map(toSource);
    if (records.length > 0) yield records;
    return;
  }
  let after: RecordCursor | undefined;
  for (;;) {
    request.signal?.throwIfAborted();
    const page = await readRecords(db, { syncId, limit: sync.definition.batchSize, ...(after === undefined ? {} : { after }) });
    const records = page.records.filter((stored) => passes(stored.record)).map(toSource);
    if (records.length > 0) yield records;
    if (page.next === null) return;
    after = page.next;
  }
}
