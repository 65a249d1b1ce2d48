/**
 * A write as the odata connector sends it, shared by `write` and `writeMany` so both check, encode
 * and refuse alike. The checks are every connector's (records/write-checks.ts); what is added here
 * is the service's side:
 *
 * - `prepareWrite`: the checked request, its group entries, and the fields identifying the record.
 * - `encodeValues`: checked values as OData JSON takes them — a Json field over an Edm.String
 *   property is sent as JSON text; dates, date-times (UTC), numbers and booleans as they are, an
 *   Int64 or Decimal past a double's reach as a bare number with all its digits (json-number-text.ts:
 *   the JSON format's default, which every service reads; a string would need IEEE754Compatible=true).
 * - `entityUrl` / `entryUrl`: where an entity found by a lookup, and one of its group entries, live
 *   (`Customers(7)`, `Customers(7)/addresses(customer_id=7,type='main')`), from the key values the
 *   service sent.
 */
import type { RecordData, WriteRequest } from '../connection.js';
import { jsonValueOf, resentInteger, resentIntegers } from '../records/json-number-text.js';
import { checkGroupEntry, checkWrite, type CheckedWrite } from '../records/write-checks.js';
import { keyPredicate, type KeyPart } from './odata-literals.js';
import type { BoundField, BoundGroup, BoundObject, ODataGroup, ODataObject } from './object-model.js';

export type Entity = Record<string, unknown>;

/** A write request checked against the object, before the service is asked anything. */
export interface PreparedWrite {
  readonly request: WriteRequest;
  readonly checked: CheckedWrite;
  /** The fields identifying the record; absent: it is created. */
  readonly match: Readonly<RecordData> | undefined;
  /** The group entries to store, checked, in the order given. */
  readonly entries: ReadonlyArray<{ group: ODataGroup; type: string; values: RecordData }>;
}

/** Checks a request; throws the ConnectorError `write` answers it with. */
export function prepareWrite(object: ODataObject, request: WriteRequest): PreparedWrite {
  const checked = checkWrite(object, request);
  const entries: Array<{ group: ODataGroup; type: string; values: RecordData }> = [];
  for (const [groupName, byType] of Object.entries(request.groups ?? {})) {
    const group = object.groups.get(groupName)!;
    for (const [type, entry] of Object.entries(byType)) entries.push({ group, type, values: checkGroupEntry(object, group, type, entry) });
  }
  return { request, checked, match: checked.match, entries };
}

/** Checked values as the service's JSON takes them. */
export function encodeValues(fields: ReadonlyMap<string, BoundField>, values: Readonly<RecordData>): Entity {
  const body: Entity = {};
  for (const [name, value] of Object.entries(values)) {
    const field = fields.get(name)!;
    body[name] =
      field.field.type === 'Json' && value !== null && (field.edm === 'text' || field.edm === 'guid')
        ? JSON.stringify(value)
        : jsonValueOf(field.field.type, value);
  }
  return body;
}

/**
 * An entry the service sent, going back in a collection written whole: an integer property (an
 * Int64 past 2^53, which reading made the text of its digits) is the bare number it was, since
 * without IEEE754Compatible=true the service sends such a number only bare.
 */
export function resentEntry(group: BoundGroup, entry: Entity): Entity {
  const integers = [...group.fields.values()].filter((field) => field.edm === 'integer').map((field) => field.field.name);
  return resentIntegers(entry, integers);
}

/** The value of an entry's type property, typed as the property is. */
export function typeValue(group: BoundGroup, type: string): unknown {
  if (group.typeField.edm !== 'integer') return type;
  // A type past 2^53 keeps its digits (a bare number); any other is the number it spells.
  const wide = resentInteger(type);
  return wide !== type ? wide : Number(type);
}

/** One new entry of a group: its type and its values. */
export function entryBody(group: BoundGroup, type: string, values: Readonly<RecordData>): Entity {
  return { ...encodeValues(group.fields, values), [group.typeField.name]: typeValue(group, type) };
}

function keyValues(parts: readonly KeyPart[], entity: Entity): Record<string, unknown> {
  return Object.fromEntries(parts.map((part) => [part.name, entity[part.name]]));
}

/** `Customers(7)` for an entity the service sent. */
export function entityUrl(bound: BoundObject, entity: Entity): string {
  return `${bound.entitySet}${keyPredicate(bound.serviceKey, keyValues(bound.serviceKey, entity))}`;
}

/** `Customers(7)/addresses(customer_id=7,type='main')` for one of its navigation entries. */
export function entryUrl(group: BoundGroup, parentUrl: string, entry: Entity): string {
  return `${parentUrl}/${group.member}${keyPredicate(group.entryKey, keyValues(group.entryKey, entry))}`;
}

/** The entry of `type` among what the service sent for a group, if there is one. */
export function entryOfType(group: BoundGroup, entity: Entity, type: string): Entity | undefined {
  const collection = entity[group.member];
  if (!Array.isArray(collection)) return undefined;
  return collection.find(
    (entry): entry is Entity => entry !== null && typeof entry === 'object' && String((entry as Entity)[group.typeField.name]) === type,
  );
}

/** An entity or entry without the service's annotations (`@odata.etag`…), as it may be sent back. */
export function withoutAnnotations(entity: Entity): Entity {
  return Object.fromEntries(Object.entries(entity).filter(([name]) => !name.includes('@')));
}
