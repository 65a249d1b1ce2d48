/**
 * Reading an object as a stream of pages. Each page is its own query, so nothing is held open
 * between pages and the caller's pace decides how much is in memory (one page).
 *
 * Paging: keyset ("seek") paging where the order allows it (seek-order.ts) — the object's key, the
 * default order and what a sync's full read uses, or a cursor field before the key, what a sync's
 * cursor run uses: every page is `WHERE <filter> AND <after the last record of the previous page>`,
 * equally fast on the last page as on the first, and stable while records are written. Any other
 * order pages by OFFSET, with the key appended to the order so records never swap places between
 * pages. `skip` is an OFFSET on the first page; `limit` caps the total.
 *
 * Reads run on the system's read pool, where each statement stops at limits.statementTimeout
 * (statement-timeout.ts), answered as a 'timeout'.
 */
import type { ReadRequest, RecordData } from '../connection.js';
import { readWindow } from '../records/read-window.js';
import { toConnectorError } from './database-errors.js';
import { attachGroups, foldJoinedRows, joinedStatement } from './group-entries.js';
import { orderByClause, resolveOrder, selectRecords, whereClause, type ObjectScope } from './record-query.js';
import { after, canSeekPast, rangeOrder, type SeekOrder, seekOrder } from './seek-order.js';
import { and, rowCount, sql, toRaw, type SqlFragment } from './sql-fragment.js';
import { decoderFor } from '../records/field-values.js';
import type { SqlObject } from './object-model.js';

/** Each field's name and decoder, worked out once per object rather than for every row. */
const rowDecoders = new WeakMap<SqlObject, ReadonlyArray<readonly [string, (raw: unknown) => unknown]>>();

function decoderOf(object: SqlObject): ReadonlyArray<readonly [string, (raw: unknown) => unknown]> {
  let decoders = rowDecoders.get(object);
  if (decoders === undefined) {
    decoders = [...object.fields.values()].map((field) => [field.name, decoderFor(field.type)] as const);
    rowDecoders.set(object, decoders);
  }
  return decoders;
}

function decodeRecord(decoders: ReadonlyArray<readonly [string, (raw: unknown) => unknown]>, row: Record<string, unknown>): RecordData {
  const record: RecordData = {};
  for (const [name, decode] of decoders) record[name] = decode(row[name]);
  return record;
}

/** The order a read pages in: the seek order when it can seek, and its ORDER BY. */
interface PageOrder {
  seeking: SeekOrder | undefined;
  orderBy: SqlFragment;
}

function pageOrderOf(scope: ObjectScope, request: ReadRequest): PageOrder {
  const resolved = resolveOrder(scope, request.order);
  const seeking = (request.order === undefined ? rangeOrder(scope, request.rangeField) : undefined) ?? seekOrder(scope, resolved);
  return { seeking, orderBy: orderByClause(scope, seeking ?? resolved) };
}

/**
 * Per object, the orders of reads without an order of their own — by the key, or a range field
 * then the key — which are what a sync's runs read in: worked out once, not at every run.
 */
const unorderedReads = new WeakMap<SqlObject, Map<string, PageOrder>>();

function pageOrder(scope: ObjectScope, request: ReadRequest): PageOrder {
  if (request.order !== undefined) return pageOrderOf(scope, request);
  let known = unorderedReads.get(scope.object);
  if (known === undefined) unorderedReads.set(scope.object, (known = new Map()));
  const range = request.rangeField ?? '';
  let found = known.get(range);
  if (found === undefined) known.set(range, (found = pageOrderOf(scope, request)));
  return found;
}

export async function* readPages(scope: ObjectScope, request: ReadRequest = {}): AsyncGenerator<RecordData[]> {
  const { pageSize, skip, limit } = readWindow(request);
  let remaining = limit;
  const where = whereClause(scope, request);
  const { seeking, orderBy } = pageOrder(scope, request);
  let keyset = seeking !== undefined;
  let last: RecordData | undefined;
  let consumed = 0;
  const action = `reading ${scope.object.name}`;
  while (remaining > 0) {
    request.signal?.throwIfAborted();
    const size = Math.min(pageSize, remaining);
    const seek = keyset && last !== undefined;
    const condition = seek ? and([where, after(scope, seeking!, last!)]) : where;
    // The statement Knex's builder would make, from the SELECT compiled once per object.
    const offset = seek ? 0 : skip + consumed;
    const page = (select: SqlFragment) =>
      offset > 0
        ? sql`${select} where ${condition} order by ${orderBy} limit ${rowCount(size)} offset ${rowCount(offset)}`
        : sql`${select} where ${condition} order by ${orderBy} limit ${rowCount(size)}`;
    // The joined statement orders the page again outside: its fields are read exactly there.
    const joined = joinedStatement(scope, () => page(selectRecords(scope, 'plain')), orderBy);
    const statement = joined ?? page(selectRecords(scope));
    const decoders = decoderOf(scope.object);
    let records: RecordData[];
    try {
      const rows = scope.engine.rowsOf(await toRaw(scope.knex, statement));
      if (joined !== undefined) {
        records = foldJoinedRows(scope, rows, (row) => decodeRecord(decoders, row));
      } else {
        records = rows.map((row) => decodeRecord(decoders, row));
        await attachGroups(scope, records);
      }
    } catch (error) {
      throw toConnectorError(error, { systemId: scope.object.systemId, action, limits: scope.limits, reads: true });
    }
    if (records.length > 0) yield records;
    if (records.length < size) return;
    remaining -= records.length;
    consumed += records.length;
    last = records[records.length - 1]!;
    // A record without a value to seek past (a NULL key): carry on by offset from here.
    if (keyset && !canSeekPast(scope, seeking!, last)) keyset = false;
  }
}

/** Number of records matching the filter (and id). */
export async function countRecords(
  scope: ObjectScope,
  request: Pick<ReadRequest, 'filter' | 'placeholders' | 'id' | 'signal'> = {},
): Promise<number> {
  const where = whereClause(scope, request);
  request.signal?.throwIfAborted();
  try {
    const row = (await scope.knex.from({ r: scope.object.table }).where(toRaw(scope.knex, where)).count({ count: '*' }).first()) as
      | { count?: unknown }
      | undefined;
    return Number(row?.count ?? 0);
  } catch (error) {
    throw toConnectorError(error, {
      systemId: scope.object.systemId,
      action: `counting ${scope.object.name}`,
      limits: scope.limits,
      reads: true,
    });
  }
}
