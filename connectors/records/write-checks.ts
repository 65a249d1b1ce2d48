/**
 * What a write means before the system is asked anything, the same for every connector:
 *
 * - `checkWrite`: the object must be writable; values are checked against the declared types
 *   (`invalid-value`), undeclared fields and groups are refused (`unknown-field`), and read-only
 *   fields may appear only to identify the record, never be set (`read-only`). It also works out
 *   which fields identify the record: `match`, else the key when the values hold all of it.
 * - `checkGroupEntry`: one group entry of a type the group has, with declared, writable fields.
 * - `newRecordValues`: what a create stores once no record was found — the values plus the match
 *   values they lack — or the refusal (`read-only`, a required value missing).
 * - `writeRefusal`: all of these at once, and the connector's own checks, as an answer rather than
 *   a throw (Connection.checkWrite).
 *
 * Values come out in the canonical form of records/field-values.ts; a connector turns them into
 * what its system takes.
 */
import type { RecordData, WriteRequest, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { checkFieldValue, decodeValue, sameFieldValue } from './field-values.js';
import { fieldNamed, unknownField, type RecordField, type RecordGroup, type RecordObject } from './object-model.js';

/** A write checked whole: its values, each group entry, and what a create would store. */
export interface CheckedWhole<G extends RecordGroup = RecordGroup> {
  readonly checked: CheckedWrite;
  readonly entries: ReadonlyArray<{ group: G; type: string; values: RecordData }>;
  /** The new record's values (newRecordValues); undefined for an update. */
  readonly created: RecordData | undefined;
}

/** A write request checked against the object, its values in canonical form. */
export interface CheckedWrite {
  readonly request: WriteRequest;
  /** The fields identifying the record: the request's match, else the key when the values hold it. */
  readonly match: Readonly<RecordData> | undefined;
  /** The values the write sets (read-only fields only identify, so they are not here). */
  readonly settable: RecordData;
}

export function readOnlyError(label: string, why: string): ConnectorError {
  return new ConnectorError('read-only', `${label} is read-only${why}`, { details: { field: label } });
}

/** Values checked against their declared fields; throws at the first that does not fit. */
export function checkFields(
  fields: ReadonlyMap<string, RecordField>,
  values: Readonly<RecordData>,
  label: (name: string) => string,
  unknown: (name: string) => Error,
): RecordData {
  const checked: RecordData = {};
  for (const [name, raw] of Object.entries(values)) {
    const field = fields.get(name);
    if (field === undefined) throw unknown(name);
    if (raw === undefined) continue;
    if (raw === null && field.required) {
      throw new ConnectorError('invalid-value', `${label(name)}: a value is required`, { details: { field: label(name) } });
    }
    checked[name] = checkFieldValue(field.type, raw, {
      label: label(name),
      ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }),
    });
  }
  return checked;
}

function matchOf(object: RecordObject, request: WriteRequest): Readonly<RecordData> | undefined {
  if (request.match !== undefined) {
    for (const name of Object.keys(request.match)) fieldNamed(object, name);
    return Object.keys(request.match).length > 0 ? request.match : undefined;
  }
  const hasKey = object.key.every((name) => request.values[name] !== undefined && request.values[name] !== null);
  return hasKey ? Object.fromEntries(object.key.map((name) => [name, request.values[name]])) : undefined;
}

/** How checkWrite names an object's fields, made once per object rather than per write. */
const labels = new WeakMap<RecordObject, { label: (name: string) => string; notAField: (name: string) => Error }>();

function fieldLabels(object: RecordObject): { label: (name: string) => string; notAField: (name: string) => Error } {
  let known = labels.get(object);
  if (known === undefined) {
    known = {
      label: (name) => `${object.name}.${name}`,
      notAField: (name) =>
        unknownField(object, name, object.groups.has(name) ? ` (it is a group: send its entries as groups, by type)` : ''),
    };
    labels.set(object, known);
  }
  return known;
}

/** Checks a request; throws the ConnectorError `write` answers it with. */
export function checkWrite(object: RecordObject, request: WriteRequest): CheckedWrite {
  if (object.readOnly) {
    throw new ConnectorError('read-only', `${object.name} of system '${object.systemId}' is read-only`, {
      details: { object: object.name },
    });
  }
  const match = matchOf(object, request);
  const { label: labelOf, notAField } = fieldLabels(object);
  const values = checkFields(object.fields, request.values, labelOf, notAField);
  const settable: RecordData = {};
  for (const [name, checked] of Object.entries(values)) {
    const field = object.fields.get(name)!;
    if (!field.readOnly) {
      settable[name] = checked;
      continue;
    }
    const label = labelOf(name);
    if (match === undefined || !Object.hasOwn(match, name)) throw readOnlyError(label, '; it is set by the system');
    else if (!sameFieldValue(checked, checkFieldValue(field.type, match[name], { label }))) {
      // Named in the match with one value and in the values with another: a change, not identification.
      throw readOnlyError(label, '; it identifies the record here and cannot be changed');
    }
  }
  for (const groupName of Object.keys(request.groups ?? {})) {
    if (!object.groups.has(groupName)) throw unknownField(object, groupName, ' (a group)');
  }
  return { request, match, settable };
}

/** Whether the request carries any group entry to store. */
export function hasGroupEntries(request: WriteRequest): boolean {
  return Object.values(request.groups ?? {}).some((entries) => Object.keys(entries).length > 0);
}

/** One group entry checked: a type the group has, an object of its declared, writable fields. */
export function checkGroupEntry(object: RecordObject, group: RecordGroup, type: string, entry: unknown): RecordData {
  const label = (name: string): string => `${object.name}.${group.name}[${type}].${name}`;
  if (!group.types.includes(type)) {
    throw new ConnectorError(
      'invalid-value',
      `${object.name}.${group.name}: '${type}' is not one of its types (${group.types.join(', ')})`,
      {
        details: { group: group.name, type, types: [...group.types] },
      },
    );
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new ConnectorError('invalid-value', `${object.name}.${group.name}[${type}]: expected an object of field values`, {
      details: { group: group.name, type },
    });
  }
  const values = checkFields(group.fields, entry as RecordData, label, (name) =>
    unknownField(object, `${group.name}.${type}.${name}`, `; the fields of ${group.name} are ${[...group.fields.keys()].join(', ')}`),
  );
  for (const name of Object.keys(values)) if (group.fields.get(name)?.readOnly) throw readOnlyError(label(name), '');
  return values;
}

/** The refusal of a write whose match finds several records. */
export function ambiguousMatch(object: RecordObject, checked: Pick<CheckedWrite, 'match'>): ConnectorError {
  return new ConnectorError(
    'rejected',
    `${object.name}: more than one record matches ${Object.keys(checked.match ?? {}).join(', ')}; nothing was written`,
    { details: { object: object.name, reason: 'several-matches' } },
  );
}

/** The values a create stores: the settable values, and the match values they lack. */
export function newRecordValues(object: RecordObject, checked: CheckedWrite): RecordData {
  const values = { ...checked.settable };
  for (const [name, raw] of Object.entries(checked.match ?? {})) {
    const field = object.fields.get(name)!;
    if (Object.hasOwn(values, name) || raw === null || raw === undefined) continue;
    if (field.readOnly)
      throw readOnlyError(`${object.name}.${name}`, `; no record has the value given for it, and a new record cannot take that value`);
    values[name] = checkFieldValue(field.type, raw, { label: `${object.name}.${name}` });
  }
  const missing = [...object.fields.values()].filter(
    (field) => field.required && !field.readOnly && (values[field.name] === undefined || values[field.name] === null),
  );
  if (missing.length > 0) {
    throw new ConnectorError('rejected', `${object.name}: a new record needs ${missing.map((field) => field.name).join(', ')}`, {
      details: { object: object.name, missing: missing.map((field) => field.name) },
    });
  }
  return values;
}

/** The answer of a write: the key as the record carries it when read. */
export function writeResult(object: RecordObject, action: WriteResult['action'], rawKey: Readonly<RecordData>): WriteResult {
  return { action, key: Object.fromEntries(object.key.map((name) => [name, decodeValue(object.fields.get(name)!.type, rawKey[name])])) };
}

/**
 * The refusal a write meets before the system is asked (Connection.checkWrite): `checkWrite`, each
 * group entry, for a create `newRecordValues`, then `more` — the connector's own checks of what was
 * checked (what its system can store); undefined when the write passes them all. Any other throw
 * is a fault, and thrown.
 */
export function writeRefusal<G extends RecordGroup>(
  object: RecordObject<G>,
  request: WriteRequest,
  action: 'create' | 'update',
  more?: (whole: CheckedWhole<G>) => void,
): ConnectorError | undefined {
  try {
    const checked = checkWrite(object, request);
    const entries: Array<{ group: G; type: string; values: RecordData }> = [];
    for (const [name, byType] of Object.entries(request.groups ?? {})) {
      const group = object.groups.get(name)!;
      for (const [type, entry] of Object.entries(byType))
        entries.push({ group, type, values: checkGroupEntry(object, group, type, entry) });
    }
    const created = action === 'create' ? newRecordValues(object, checked) : undefined;
    more?.({ checked, entries, created });
    return undefined;
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
}
