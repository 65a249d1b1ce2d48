/**
 * WriteRequest.leaveUnchanged on SQL: the lookup of such a write reads the found record's declared
 * columns along with its key, and the write is left out when the record already holds every value
 * it sets. Values are compared as a run compares a record it read (runtime/sync/changed-fields.ts):
 * the stored column decoded as a read decodes it, the written value as the write's checks made
 * it, `sameFieldValue` between them; null only equals null. Comparing inside the transaction that
 * would write, after the match lock, means no other writer can change the record in between.
 *
 * Writes with group entries are always made: their entries live in other tables.
 */
import { decoderFor, sameFieldValue } from '../records/field-values.js';
import type { SqlObject } from './object-model.js';
import type { PreparedWrite, Row } from './prepare-write.js';

/** Whether this write may be left out when its record holds its values (prepare-write.ts decides it once). */
export function mayLeaveUnchanged(prepared: PreparedWrite | undefined): boolean {
  return prepared?.leavesUnchanged === true;
}

/** The columns a lookup reads: the key and `extra`, and every declared field when a write may be left unchanged. */
export function lookupColumns(object: SqlObject, extra: readonly string[], compares: boolean): string[] {
  return [...new Set([...object.key, ...extra, ...(compares ? object.fields.keys() : [])])];
}

/** The key columns of a row read with more. */
export function rowKey(object: SqlObject, row: Row): Row {
  const key: Row = {};
  for (const name of object.key) key[name] = row[name];
  return key;
}

/** Whether `row` (every declared column, as read) already holds each value `prepared` sets. */
export function holdsValues(object: SqlObject, row: Row, prepared: PreparedWrite): boolean {
  const settable = prepared.checked.settable;
  for (const name of Object.keys(settable)) {
    const field = object.fields.get(name);
    if (field === undefined || !Object.hasOwn(row, name)) return false;
    const written = settable[name];
    const stored = decoderFor(field.type)(row[name]);
    if (written === null ? stored !== null : !sameFieldValue(stored, written)) return false;
  }
  return true;
}
