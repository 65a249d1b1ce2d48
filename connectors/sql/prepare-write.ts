/**
 * What a write means before the database is asked anything, shared by `write` (write.ts) and
 * `writeMany` (write-many.ts) so both check, encode and refuse exactly alike:
 *
 * - `prepareWrite`: the object must be writable; values are checked against the declared types
 *   (`invalid-value`), undeclared fields and groups are refused (`unknown-field`), and read-only
 *   fields may appear only to identify the record, never be set (`read-only`). It also works out
 *   which fields identify the record (`match`, else the key when the values hold all of it) and the
 *   condition finding it.
 * - `createRow`: the row a create inserts once no record was found — the values plus the match
 *   values they lack — or the refusal (`read-only`, a required value missing).
 */
import type { RecordData, WriteRequest, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { compareWithConstant } from './compare-column.js';
import { fieldNamed, unknownField, type SqlField, type SqlObject } from './object-model.js';
import { fieldColumn, type ObjectScope } from './record-query.js';
import { and, sql, type SqlFragment } from './sql-fragment.js';
import { decodeValue, encodeValue } from './value-codec.js';

export type Row = Record<string, unknown>;

/** A write request checked and encoded, ready to be looked up and stored. */
export interface PreparedWrite {
  readonly request: WriteRequest;
  /** The fields identifying the record: the request's match, else the key when the values hold it. */
  readonly match: Readonly<RecordData> | undefined;
  /** The encoded values the write sets (read-only fields only identify, so they are not here). */
  readonly settable: Row;
  /** Finds the record (its table is `r`); absent when nothing identifies one, so it is created. */
  readonly condition: SqlFragment | undefined;
}

export function readOnlyError(label: string, why: string): ConnectorError {
  return new ConnectorError('read-only', `${label} is read-only${why}`, { details: { field: label } });
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (a !== null && b !== null && String(a) === String(b));
}

/** Values encoded by their declared types; throws the first one that does not fit. */
export function encodeFields(
  scope: ObjectScope,
  fields: ReadonlyMap<string, SqlField>,
  values: Readonly<RecordData>,
  label: (name: string) => string,
  unknown: (name: string) => Error,
): Row {
  const encoded: Row = {};
  for (const [name, raw] of Object.entries(values)) {
    const field = fields.get(name);
    if (field === undefined) throw unknown(name);
    if (raw === undefined) continue;
    if (raw === null && field.required) {
      throw new ConnectorError('invalid-value', `${label(name)}: a value is required`, { details: { field: label(name) } });
    }
    encoded[name] = encodeValue(field.type, raw, {
      engine: scope.engine,
      label: label(name),
      ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }),
    });
  }
  return encoded;
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

function matchOf(object: SqlObject, request: WriteRequest): Readonly<RecordData> | undefined {
  if (request.match !== undefined) {
    for (const name of Object.keys(request.match)) fieldNamed(object, name);
    return Object.keys(request.match).length > 0 ? request.match : undefined;
  }
  const hasKey = object.key.every((name) => request.values[name] !== undefined && request.values[name] !== null);
  return hasKey ? Object.fromEntries(object.key.map((name) => [name, request.values[name]])) : undefined;
}

/** Checks and encodes a request; throws the ConnectorError `write` answers it with. */
export function prepareWrite(scope: ObjectScope, request: WriteRequest): PreparedWrite {
  const { object } = scope;
  if (object.readOnly)
    throw new ConnectorError('read-only', `${object.name} of system '${object.systemId}' is read-only`, {
      details: { object: object.name },
    });
  const match = matchOf(object, request);
  const notAField = (name: string): Error =>
    unknownField(object, name, object.groups.has(name) ? ` (it is a group: send its entries as groups, by type)` : '');
  const values = encodeFields(scope, object.fields, request.values, (name) => `${object.name}.${name}`, notAField);
  const settable: Row = {};
  for (const [name, encoded] of Object.entries(values)) {
    const field = object.fields.get(name)!;
    if (!field.readOnly) settable[name] = encoded;
    else if (match === undefined || !Object.hasOwn(match, name)) throw readOnlyError(`${object.name}.${name}`, '; it is set by the system');
    else if (!sameValue(encoded, encodeValue(field.type, match[name], { engine: scope.engine, label: `${object.name}.${name}` }))) {
      // Named in the match with one value and in the values with another: a change, not identification.
      throw readOnlyError(`${object.name}.${name}`, '; it identifies the record here and cannot be changed');
    }
  }
  for (const groupName of Object.keys(request.groups ?? {})) {
    if (!object.groups.has(groupName)) throw unknownField(object, groupName, ' (a group)');
  }
  return { request, match, settable, condition: match === undefined ? undefined : matchCondition(scope, match) };
}

/** The refusal of a write whose match finds several records. */
export function ambiguousMatch(object: SqlObject, prepared: PreparedWrite): ConnectorError {
  return new ConnectorError(
    'rejected',
    `${object.name}: more than one record matches ${Object.keys(prepared.match ?? {}).join(', ')}; nothing was written`,
    { details: { object: object.name, reason: 'several-matches' } },
  );
}

/** The row a create inserts: the settable values, and the match values they lack. */
export function createRow(scope: ObjectScope, prepared: PreparedWrite): Row {
  const { object } = scope;
  const row = { ...prepared.settable };
  for (const [name, raw] of Object.entries(prepared.match ?? {})) {
    const field = object.fields.get(name)!;
    if (Object.hasOwn(row, name) || raw === null || raw === undefined) continue;
    if (field.readOnly)
      throw readOnlyError(`${object.name}.${name}`, `; no record has the value given for it, and a new record cannot take that value`);
    row[name] = encodeValue(field.type, raw, { engine: scope.engine, label: `${object.name}.${name}` });
  }
  const missing = [...object.fields.values()].filter(
    (field) => field.required && !field.readOnly && (row[field.name] === undefined || row[field.name] === null),
  );
  if (missing.length > 0) {
    throw new ConnectorError('rejected', `${object.name}: a new record needs ${missing.map((field) => field.name).join(', ')}`, {
      details: { object: object.name, missing: missing.map((field) => field.name) },
    });
  }
  return row;
}

/** Whether a create of `row` leaves part of the key to the database (an identity, a sequence). */
export function leavesKeyToDatabase(object: SqlObject, row: Row): boolean {
  return object.key.some((name) => row[name] === undefined || row[name] === null);
}

/** The answer of a write: the key as the record carries it when read. */
export function writeResult(object: SqlObject, action: WriteResult['action'], rawKey: Row): WriteResult {
  return { action, key: Object.fromEntries(object.key.map((name) => [name, decodeValue(object.fields.get(name)!.type, rawKey[name])])) };
}
