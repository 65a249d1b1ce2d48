/**
 * Reading an object as a stream of pages. Each page is its own query, so nothing is held open
 * between pages and the caller's pace decides how much is in memory (one page).
 *
 * Paging: keyset ("seek") paging when the order is the object's key alone and the key fields are
 * Integer, Number or String — the default order, and what a sync's full read uses: every page is
 * `WHERE <filter> AND key > <last key of the previous page>`, equally fast on the last page as on
 * the first, and stable while records are written. Any other order pages by OFFSET, with the key
 * appended to the order so records never swap places between pages. `skip` is an OFFSET on the
 * first page; `limit` caps the total.
 *
 * Reads run on the system's read pool, where each statement stops at limits.statementTimeout
 * (statement-timeout.ts), answered as a 'timeout'.
 */
import type { ReadRequest, RecordData } from '../connection.js';
import { readWindow } from '../records/read-window.js';
import { compareWithConstant } from './compare-column.js';
import { toConnectorError } from './database-errors.js';
import { attachGroups, foldJoinedRows, joinedStatement } from './group-entries.js';
import { orderByClause, resolveOrder, selectRecords, whereClause, type ObjectScope, type ResolvedOrder } from './record-query.js';
import { and, or, sql, toRaw, value, type SqlFragment } from './sql-fragment.js';
import { decoderFor } from '../records/field-values.js';
import type { SqlObject } from './object-model.js';

function usesKeyset(scope: ObjectScope, order: ResolvedOrder): boolean {
  const { key, fields } = scope.object;
  if (order.terms.length !== key.length) return false;
  return order.terms.every((term, index) => {
    const type = fields.get(key[index]!)?.type;
    return term.field === key[index] && (type === 'Integer' || type === 'Number' || type === 'String');
  });
}

/** Records after `last` in the order: (k1 > v1) OR (k1 = v1 AND k2 > v2) OR … (`<` for descending terms). */
function after(scope: ObjectScope, order: ResolvedOrder, last: RecordData): SqlFragment {
  return or(
    order.terms.map((term, index) => {
      const equal = order.terms
        .slice(0, index)
        .map((previous) => compareWithConstant(scope.engine, previous.column, '=', last[previous.field!]));
      const beyond = compareWithConstant(scope.engine, term.column, term.direction === 'asc' ? '>' : '<', last[term.field!]);
      return and([...equal, beyond]);
    }),
  );
}

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

export async function* readPages(scope: ObjectScope, request: ReadRequest = {}): AsyncGenerator<RecordData[]> {
  const { pageSize, skip, limit } = readWindow(request);
  let remaining = limit;
  const where = whereClause(scope, request);
  const order = resolveOrder(scope, request.order);
  const orderBy = orderByClause(scope, order);
  let keyset = usesKeyset(scope, order);
  let last: RecordData | undefined;
  let consumed = 0;
  const action = `reading ${scope.object.name}`;
  while (remaining > 0) {
    request.signal?.throwIfAborted();
    const size = Math.min(pageSize, remaining);
    const seeking = keyset && last !== undefined;
    const condition = seeking ? and([where, after(scope, order, last!)]) : where;
    // The statement Knex's builder would make, from the SELECT compiled once per object.
    const offset = seeking ? 0 : skip + consumed;
    const statement =
      offset > 0
        ? sql`${selectRecords(scope)} where ${condition} order by ${orderBy} limit ${value(size)} offset ${value(offset)}`
        : sql`${selectRecords(scope)} where ${condition} order by ${orderBy} limit ${value(size)}`;
    const joined = joinedStatement(scope, statement, orderBy);
    const decoders = decoderOf(scope.object);
    let records: RecordData[];
    try {
      const rows = scope.engine.rowsOf(await toRaw(scope.knex, joined ?? statement));
      if (joined !== undefined) {
        records = foldJoinedRows(scope, rows, (row) => decodeRecord(decoders, row));
      } else {
        records = rows.map((row) => decodeRecord(decoders, row));
        await attachGroups(scope, records);
      }
    } catch (error) {
      throw toConnectorError(error, { systemId: scope.object.systemId, action, limits: scope.limits });
    }
    if (records.length > 0) yield records;
    if (records.length < size) return;
    remaining -= records.length;
    consumed += records.length;
    last = records[records.length - 1]!;
    // A key without a value cannot be sought past; carry on by offset from here.
    if (order.terms.some((term) => term.field !== null && (last![term.field] === null || last![term.field] === undefined))) keyset = false;
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
    throw toConnectorError(error, { systemId: scope.object.systemId, action: `counting ${scope.object.name}`, limits: scope.limits });
  }
}
