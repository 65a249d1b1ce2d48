/**
 * Creating or updating one record and its group entries in one transaction.
 *
 * The record is looked up by `match` when given, else by the object's key when `values` hold all
 * of it; one record found → updated, none → created (match values fill in fields the values lack),
 * several → refused. Each group entry is then upserted by (foreign key, type). Values are checked
 * against the declared types first (`invalid-value`), undeclared fields are refused
 * (`unknown-field`), and read-only fields may appear only to identify the record, never be set
 * (`read-only`), as may nothing of a read-only object or system.
 */
import type { Knex } from 'knex';
import type { RecordData, WriteRequest, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { compareWithConstant } from './compare-column.js';
import { toConnectorError } from './database-errors.js';
import { fieldNamed, groupParentKey, unknownField, type SqlField, type SqlGroup, type SqlObject } from './object-model.js';
import { fieldColumn, type ObjectScope } from './record-query.js';
import { and, sql, toRaw, type SqlFragment } from './sql-fragment.js';
import { decodeValue, encodeValue } from './value-codec.js';

type Row = Record<string, unknown>;

function readOnlyError(label: string, why: string): ConnectorError {
  return new ConnectorError('read-only', `${label} is read-only${why}`, { details: { field: label } });
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (a !== null && b !== null && String(a) === String(b));
}

function encodeFields(scope: ObjectScope, fields: ReadonlyMap<string, SqlField>, values: Readonly<RecordData>, label: (name: string) => string, unknown: (name: string) => Error): Row {
  const encoded: Row = {};
  for (const [name, raw] of Object.entries(values)) {
    const field = fields.get(name);
    if (field === undefined) throw unknown(name);
    if (raw === undefined) continue;
    if (raw === null && field.required) {
      throw new ConnectorError('invalid-value', `${label(name)}: a value is required`, { details: { field: label(name) } });
    }
    encoded[name] = encodeValue(field.type, raw, { dialect: scope.dialect, label: label(name), ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }) });
  }
  return encoded;
}

/** The condition finding the record: `field = value` per match field (`IS NULL` for null). */
function matchCondition(scope: ObjectScope, match: Readonly<RecordData>): SqlFragment {
  return and(
    Object.entries(match).map(([name, raw]) => {
      const column = fieldColumn(scope, [name]);
      return raw === null || raw === undefined ? sql`(${column.sql} IS NULL)` : compareWithConstant(scope.dialect, column, '=', raw);
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

async function upsertGroupEntry(trx: Knex.Transaction, scope: ObjectScope, group: SqlGroup, parentKey: unknown, type: string, entry: unknown): Promise<void> {
  const object = scope.object;
  const label = (name: string): string => `${object.name}.${group.name}[${type}].${name}`;
  if (!group.types.includes(type)) {
    throw new ConnectorError('invalid-value', `${object.name}.${group.name}: '${type}' is not one of its types (${group.types.join(', ')})`, {
      details: { group: group.name, type, types: [...group.types] },
    });
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new ConnectorError('invalid-value', `${object.name}.${group.name}[${type}]: expected an object of field values`, { details: { group: group.name, type } });
  }
  const values = encodeFields(scope, group.fields, entry as RecordData, label, (name) => unknownField(object, `${group.name}.${type}.${name}`, `; the fields of ${group.name} are ${[...group.fields.keys()].join(', ')}`));
  for (const name of Object.keys(values)) if (group.fields.get(name)?.readOnly) throw readOnlyError(label(name), '');
  const identity = { [group.foreignKey]: parentKey, [group.typeField]: type };
  const existing = await trx(group.table).select(trx.raw('1 AS found')).where(identity).first();
  if (existing !== undefined) {
    if (Object.keys(values).length > 0) await trx(group.table).where(identity).update(values);
  } else {
    await trx(group.table).insert({ ...values, ...identity });
  }
}

export async function writeRecord(scope: ObjectScope, request: WriteRequest): Promise<WriteResult> {
  const { object, knex } = scope;
  if (object.readOnly) throw new ConnectorError('read-only', `${object.name} of system '${object.systemId}' is read-only`, { details: { object: object.name } });
  const match = matchOf(object, request);
  const notAField = (name: string): Error =>
    unknownField(object, name, object.groups.has(name) ? ` (it is a group: send its entries as groups, by type)` : '');
  const values = encodeFields(scope, object.fields, request.values, (name) => `${object.name}.${name}`, notAField);
  const settable: Row = {};
  for (const [name, encoded] of Object.entries(values)) {
    const field = object.fields.get(name)!;
    if (!field.readOnly) settable[name] = encoded;
    else if (match === undefined || !Object.hasOwn(match, name)) throw readOnlyError(`${object.name}.${name}`, '; it is set by the system');
    else if (!sameValue(encoded, encodeValue(field.type, match[name], { dialect: scope.dialect, label: `${object.name}.${name}` }))) {
      // Named in the match with one value and in the values with another: a change, not identification.
      throw readOnlyError(`${object.name}.${name}`, '; it identifies the record here and cannot be changed');
    }
  }
  for (const groupName of Object.keys(request.groups ?? {})) {
    if (!object.groups.has(groupName)) throw unknownField(object, groupName, ' (a group)');
  }
  const keyFields = object.key.map((name) => object.fields.get(name)!);
  const condition = match === undefined ? undefined : matchCondition(scope, match);
  try {
    return await knex.transaction(async (trx) => {
      const found = condition === undefined ? [] : ((await trx.from({ r: object.table }).select(object.key.map((name) => `r.${name}`)).where(toRaw(trx, condition)).limit(2)) as Row[]);
      if (found.length > 1) {
        throw new ConnectorError('rejected', `${object.name}: more than one record matches ${Object.keys(match ?? {}).join(', ')}; nothing was written`, { details: { object: object.name } });
      }
      let action: WriteResult['action'];
      let rawKey: Row;
      if (found.length === 1) {
        action = 'updated';
        rawKey = found[0]!;
        if (Object.keys(settable).length > 0) await trx(object.table).where(rawKey).update(settable);
        for (const name of object.key) if (Object.hasOwn(settable, name)) rawKey[name] = settable[name];
      } else {
        action = 'created';
        const row = { ...settable };
        for (const [name, raw] of Object.entries(match ?? {})) {
          const field = object.fields.get(name)!;
          if (Object.hasOwn(row, name) || raw === null || raw === undefined) continue;
          if (field.readOnly) throw readOnlyError(`${object.name}.${name}`, `; no record has the value given for it, and a new record cannot take that value`);
          row[name] = encodeValue(field.type, raw, { dialect: scope.dialect, label: `${object.name}.${name}` });
        }
        const missing = [...object.fields.values()].filter((field) => field.required && !field.readOnly && (row[field.name] === undefined || row[field.name] === null));
        if (missing.length > 0) {
          throw new ConnectorError('rejected', `${object.name}: a new record needs ${missing.map((field) => field.name).join(', ')}`, { details: { object: object.name, missing: missing.map((field) => field.name) } });
        }
        rawKey = await insertRecord(trx, scope, row);
      }
      for (const [groupName, entries] of Object.entries(request.groups ?? {})) {
        const group = object.groups.get(groupName)!;
        const parentKey = rawKey[groupParentKey(object)];
        for (const [type, entry] of Object.entries(entries)) await upsertGroupEntry(trx, scope, group, parentKey, type, entry);
      }
      return { action, key: Object.fromEntries(keyFields.map((field) => [field.name, decodeValue(field.type, rawKey[field.name])])) };
    });
  } catch (error) {
    throw toConnectorError(error, { systemId: object.systemId, action: `writing ${object.name}` });
  }
}

/** Inserts and returns the key as stored, generated parts included (RETURNING, or MySQL's insert id). */
async function insertRecord(trx: Knex.Transaction, scope: ObjectScope, row: Row): Promise<Row> {
  const { object } = scope;
  if (scope.dialect !== 'mysql') {
    const returned = (await trx(object.table).insert(row).returning([...object.key])) as Row[];
    return { ...returned[0] };
  }
  const [insertId] = (await trx(object.table).insert(row)) as number[];
  const key: Row = {};
  for (const name of object.key) key[name] = row[name];
  const generated = object.key.filter((name) => row[name] === undefined);
  if (generated.length === 1 && insertId !== undefined && insertId !== 0) key[generated[0]!] = insertId;
  return key;
}
