/**
 * Keyset ("seek") paging of an object read: every page is `WHERE <filter> AND <after the last
 * record of the previous page>`, as fast on the last page as on the first, and stable while
 * records are written. It applies when the order is the object's own fields and ends with its key
 * (resolveOrder appends it), so it is total:
 *
 * - the key alone — the default order, a sync's full read — with Integer, Number or String fields;
 * - a range field before the key (ReadRequest.rangeField: a sync's cursor run reads by
 *   `changed_at, id`, so that an index on the cursor serves both its condition and the order) of
 *   type Integer, String, Date or DateTime, ascending: NULLs come first ascending on every engine,
 *   so none follows a value.
 *
 * A Date or DateTime term is ordered and sought by its ISO text (`2024-01-05T10:00:00.000Z`), the
 * very text a record carries at that field, so the value of the last record seeks past exactly what
 * was read even where the column holds microseconds (PostgreSQL, MariaDB) that records do not. On
 * SQLite that text is the strftime expression the filter compares, so one index on it serves the
 * filter, the order and the seek; elsewhere the first term's seek is repeated on the column itself
 * (`changed_at >= last`, see compare-column.ts), which an index on the column serves.
 *
 * A last record without a usable value for a term (NULL, a date-time that is not canonical text, an
 * integer too large for a number) cannot be sought past: the read carries on by OFFSET from there
 * (read.ts).
 */
import type { RecordData } from '../connection.js';
import { wholeNumberText } from '../records/field-values.js';
import { compareWithConstant } from './compare-column.js';
import { resolveOrder, type ObjectScope, type ResolvedOrder } from './record-query.js';
import { textForm } from './sql-dialect.js';
import { and, or, type SqlFragment } from './sql-fragment.js';

type Term = ResolvedOrder['terms'][number];

/** An order that pages by seeking: its terms as ordered and compared, each with the column it reads. */
export interface SeekOrder extends ResolvedOrder {
  terms: Array<Term & { field: string; native: Term['column'] }>;
}

const KEY_TYPES = new Set(['Integer', 'Number', 'String']);
const LEADING_TYPES = new Set(['Integer', 'String', 'Date', 'DateTime']);
const CANONICAL: Readonly<Record<string, RegExp>> = {
  Date: /^\d{4}-\d{2}-\d{2}$/,
  DateTime: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
};

/**
 * `order` as a seek order, its Date and DateTime terms by their ISO text; undefined when it cannot
 * seek. Fields before the key only for a range field: an order asked for (GETDATA_ORDER, a sync's
 * `order`) keeps the column's own order, which an index on the column serves as it is.
 */
export function seekOrder(scope: ObjectScope, order: ResolvedOrder, range = false): SeekOrder | undefined {
  const { key, fields } = scope.object;
  const leading = order.terms.length - key.length;
  if (leading < 0 || (leading > 0 && !range)) return undefined;
  const terms: SeekOrder['terms'] = [];
  for (const [index, term] of order.terms.entries()) {
    const type = term.field === null ? undefined : fields.get(term.field)?.type;
    if (term.field === null || type === undefined) return undefined;
    const fits =
      index >= leading ? term.field === key[index - leading] && KEY_TYPES.has(type) : LEADING_TYPES.has(type) && term.direction === 'asc';
    if (!fits) return undefined;
    const dated = type === 'Date' || type === 'DateTime';
    const column = dated ? { ...term.column, sql: textForm(scope.engine, type, term.column.sql)!, type: 'String' as const } : term.column;
    terms.push({ ...term, field: term.field, column, native: term.column });
  }
  return { terms };
}

/**
 * The seek order of a read's range field (ReadRequest.rangeField): the field, then the key — when
 * the field is one of the object's own and can be sought by; else undefined, and the read keeps
 * its default order.
 */
export function rangeOrder(scope: ObjectScope, field: string | undefined): SeekOrder | undefined {
  if (field === undefined || !scope.object.fields.has(field)) return undefined;
  return seekOrder(scope, resolveOrder(scope, [{ field: [field], direction: 'asc', start: 0 }]), true);
}

/** Whether the read can seek past `last`: each term has a value, a date in the text the order uses. */
export function canSeekPast(scope: ObjectScope, order: SeekOrder, last: RecordData): boolean {
  return order.terms.every((term) => {
    const value = last[term.field];
    if (value === null || value === undefined) return false;
    const type = scope.object.fields.get(term.field)?.type ?? '';
    // An integer past 2^53 is text in the record, compared exactly (compare-column.ts binds it
    // through engine.exactNumber, as the BIGINT an index serves).
    if (type === 'Integer') return typeof value === 'number' || (typeof value === 'string' && wholeNumberText(value) !== undefined);
    const canonical = CANONICAL[type];
    return canonical === undefined || (typeof value === 'string' && canonical.test(value));
  });
}

/**
 * Records after `last` in the order: (k1 > v1) OR (k1 = v1 AND k2 > v2) OR … (`<` for descending
 * terms), behind `k1 >= v1` on the first term's own column, which bounds the range an index reads.
 */
export function after(scope: ObjectScope, order: SeekOrder, last: RecordData): SqlFragment {
  const branches = or(
    order.terms.map((term, index) => {
      const equal = order.terms
        .slice(0, index)
        .map((previous) => compareWithConstant(scope.engine, previous.column, '=', last[previous.field]));
      const beyond = compareWithConstant(scope.engine, term.column, term.direction === 'asc' ? '>' : '<', last[term.field]);
      return and([...equal, beyond]);
    }),
  );
  const first = order.terms[0]!;
  if (order.terms.length === 1) return branches;
  const from = compareWithConstant(scope.engine, first.native, first.direction === 'asc' ? '>=' : '<=', last[first.field]);
  return and([from, branches]);
}
