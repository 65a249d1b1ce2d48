/**
 * A write as the sql connector stores it, shared by `write` (write.ts) and `writeMany`
 * (write-many.ts) so both check, encode and refuse exactly alike. The checks are every
 * connector's (records/write-checks.ts); what is added here is the database's side:
 *
 * - `prepareWrite`: the checked values bound as the engine takes them, and the condition finding
 *   the record by its match.
 * - `createRow`: the row a create inserts once no record was found, or the refusal.
 * - `encodeGroupEntry`: one group entry's values, checked and bound.
 * - `sqlWriteRefusal`: what of all this would refuse a write, without a database (Connection.checkWrite).
 */
import type { RecordData, WriteRequest } from '../connection.js';
import type { ConnectorError } from '../connector-error.js';
import { checkGroupEntry, checkWrite, hasGroupEntries, newRecordValues, writeRefusal, type CheckedWrite } from '../records/write-checks.js';
import { compareWithConstant } from './compare-column.js';
import type { Engine } from './engines/index.js';
import type { SqlGroup, SqlObject } from './object-model.js';
import { fieldColumn, type ObjectScope } from './record-query.js';
import { and, sql, type SqlFragment } from './sql-fragment.js';
import { bindChecked } from './value-codec.js';

export { ambiguousMatch, readOnlyError, writeResult } from '../records/write-checks.js';

export type Row = Record<string, unknown>;

/** A write request checked and encoded, ready to be looked up and stored. */
export interface PreparedWrite {
  readonly request: WriteRequest;
  /** The fields identifying the record (records/write-checks.ts). */
  readonly match: Readonly<RecordData> | undefined;
  /** The values the write sets, bound as the database takes them. */
  readonly settable: Row;
  /** The checked values before binding, for a create's row. */
  readonly checked: CheckedWrite;
  /** Finds the record (its table is `r`); absent when nothing identifies one, so it is created. */
  readonly condition: SqlFragment | undefined;
  /** Left as it is when the record found already holds its values (unchanged-row.ts). */
  readonly leavesUnchanged: boolean;
}

/** Checked values bound as the engine takes them. */
function bindRow(engine: Engine, fields: SqlObject['fields'], checked: Readonly<RecordData>, label: (name: string) => string): Row {
  const row: Row = {};
  for (const [name, raw] of Object.entries(checked)) {
    row[name] = bindChecked(fields.get(name)!.type, raw, { engine, label: label(name) });
  }
  return row;
}

/** The condition finding the record: `field = value` per match field (`IS NULL` for null). */
export function matchCondition(scope: ObjectScope, match: Readonly<RecordData>): SqlFragment {
  return and(
    Object.entries(match).map(([name, raw]) => {
      const column = fieldColumn(scope, [name]);
      return raw === null || raw === undefined ? sql`(${column.sql} IS NULL)` : compareWithConstant(scope.engine, column, '=', raw);
    }),
  );
}

/** Checks and encodes a request; throws the ConnectorError `write` answers it with. */
export function prepareWrite(scope: ObjectScope, request: WriteRequest): PreparedWrite {
  const { object } = scope;
  const checked = checkWrite(object, request);
  const settable = bindRow(scope.engine, object.fields, checked.settable, fieldLabel(object));
  const match = checked.match;
  const leavesUnchanged = request.leaveUnchanged === true && request.onMatch !== 'skip' && !hasGroupEntries(request);
  if (match === undefined) return { request, match, settable, checked, condition: undefined, leavesUnchanged };
  if (mayRefuse(object, match)) return { request, match, settable, checked, condition: matchCondition(scope, match), leavesUnchanged };
  // Built when first asked: a batch matching on one field (find-records.ts) never asks.
  let condition: SqlFragment | undefined;
  return {
    request,
    match,
    settable,
    checked,
    leavesUnchanged,
    get condition(): SqlFragment {
      condition ??= matchCondition(scope, match);
      return condition;
    },
  };
}

/**
 * Whether building the match condition may refuse the write (compare-column.ts refuses a Json
 * field, and a date compared with text): it is then built at once, so the refusal is this
 * write's, as it always was.
 */
function mayRefuse(object: SqlObject, match: Readonly<RecordData>): boolean {
  for (const name of Object.keys(match)) if (object.fields.get(name)?.type === 'Json' || match[name] instanceof Date) return true;
  return false;
}

const labels = new WeakMap<SqlObject, (name: string) => string>();

/** `Object.field`, the label of a value in a refusal; one function per object, not per write. */
function fieldLabel(object: SqlObject): (name: string) => string {
  let label = labels.get(object);
  if (label === undefined) {
    label = (name) => `${object.name}.${name}`;
    labels.set(object, label);
  }
  return label;
}

/** The row a create inserts: the settable values, and the match values they lack. */
export function createRow(scope: ObjectScope, prepared: PreparedWrite): Row {
  const { object } = scope;
  return bindRow(scope.engine, object.fields, newRecordValues(object, prepared.checked), fieldLabel(object));
}

/** One group entry's values, checked and bound. */
export function encodeGroupEntry(scope: ObjectScope, group: SqlGroup, type: string, entry: unknown): Row {
  const { object } = scope;
  return bindRow(
    scope.engine,
    group.fields,
    checkGroupEntry(object, group, type, entry),
    (name) => `${object.name}.${group.name}[${type}].${name}`,
  );
}

/** Whether a create of `row` leaves part of the key to the database (an identity, a sequence). */
export function leavesKeyToDatabase(object: SqlObject, row: Row): boolean {
  return object.key.some((name) => row[name] === undefined || row[name] === null);
}

/** The refusal a write meets before the database is asked — the checks above, each value bound as the engine takes it — or undefined. */
export function sqlWriteRefusal(
  engine: Engine,
  object: SqlObject,
  request: WriteRequest,
  action: 'create' | 'update',
): ConnectorError | undefined {
  const label = (name: string): string => `${object.name}.${name}`;
  return writeRefusal(object, request, action, ({ checked, entries, created }) => {
    bindRow(engine, object.fields, checked.settable, label);
    for (const { group, type, values } of entries)
      bindRow(engine, group.fields, values, (name) => `${object.name}.${group.name}[${type}].${name}`);
    if (created !== undefined) bindRow(engine, object.fields, created, label);
  });
}
