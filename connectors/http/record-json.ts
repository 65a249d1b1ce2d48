/**
 * Records between the API's JSON and what records carry (connection.ts): each declared field is
 * the JSON property of its name, decoded to its declared type (records/field-values.ts; missing is
 * null); each typed group is a nested object of the record, one entry per type
 * (`addresses: { main: { city: … } }`), its fields decoded alike. Properties the object does not
 * declare are not read. Writes send the checked values as they are (canonical JSON: numbers,
 * booleans, ISO text; an Integer or Number past a double's reach as a bare number with all its
 * digits, json-number-text.ts), and group entries merged into those the record already has, so that
 * writing `main` keeps `invoice`, and writing `main.city` keeps `main.street`.
 */
import type { RecordData } from '../connection.js';
import { decoderFor, type Decoder } from '../records/field-values.js';
import { jsonValues, resentIntegers } from '../records/json-number-text.js';
import type { RecordField } from '../records/object-model.js';
import type { HttpObject } from './http-object.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function decoders(fields: ReadonlyMap<string, RecordField>): Array<[string, Decoder]> {
  return [...fields.values()].map((field) => [field.name, decoderFor(field.type)]);
}

/** A reader of the object's JSON records, its decoders picked once. */
export function recordReader(object: HttpObject): (raw: Json) => RecordData {
  const fields = decoders(object.fields);
  const groups = [...object.groups.values()].map((group) => ({ group, fields: decoders(group.fields) }));
  const own = (raw: Json, name: string): unknown => (Object.hasOwn(raw, name) ? raw[name] : undefined);
  return (raw) => {
    const record: RecordData = {};
    for (const [name, decode] of fields) record[name] = decode(own(raw, name));
    for (const { group, fields: groupFields } of groups) {
      const entries: Record<string, RecordData> = {};
      const nested = own(raw, group.property);
      if (isObject(nested)) {
        for (const type of group.types) {
          const entry = own(nested, type);
          if (!isObject(entry)) continue;
          const values: RecordData = {};
          for (const [name, decode] of groupFields) values[name] = decode(own(entry, name));
          entries[type] = values;
        }
      }
      record[group.name] = entries;
    }
    return record;
  };
}

/** Checked values of `fields` as the body holds them (jsonValueOf). */
function jsonValuesOf(fields: ReadonlyMap<string, RecordField>, values: Readonly<RecordData>): Json {
  return jsonValues(values, (name) => fields.get(name)?.type);
}

/**
 * The JSON body of a write: `values` (checked) and the group entries (checked), each group's
 * entries merged over those of `existing` (the record as the API gave it, its wide Integers bare
 * again as in resentRecord), since the API replaces a nested object it is sent.
 */
export function writeBody(
  object: HttpObject,
  values: Readonly<RecordData>,
  groups: ReadonlyMap<string, ReadonlyMap<string, RecordData>>,
  existing: Json | undefined,
): Json {
  const body = jsonValuesOf(object.fields, values);
  for (const [name, entries] of groups) {
    const group = object.groups.get(name)!;
    const before = existing !== undefined && isObject(existing[group.property]) ? (existing[group.property] as Json) : {};
    const merged: Json = { ...resentEntries(group.fields, before) };
    for (const [type, entry] of entries)
      merged[type] = { ...(isObject(merged[type]) ? merged[type] : {}), ...jsonValuesOf(group.fields, entry) };
    body[group.property] = merged;
  }
  return body;
}

/**
 * The record as the API gave it, to be sent back whole (an update by PUT). A declared Integer that
 * reading made the digits of a whole number past 2^53 (exact-json.ts) is a bare number again, as an
 * Integer is written; everything else is sent as it came. (An API that sent such an Integer as a
 * string gets a number back: the field is declared Integer, and every write of it sends one.)
 */
export function resentRecord(object: HttpObject, raw: Json): Json {
  let body = resentValues(object.fields, raw);
  for (const group of object.groups.values()) {
    const entries = body[group.property];
    if (!isObject(entries)) continue;
    const resent = resentEntries(group.fields, entries);
    if (resent !== entries) body = { ...body, [group.property]: resent };
  }
  return body;
}

/** A group's entries by type as the API gave them, each with its wide Integers bare again; `entries` itself when none is. */
function resentEntries(fields: ReadonlyMap<string, RecordField>, entries: Json): Json {
  let resent: Json | undefined;
  for (const [type, entry] of Object.entries(entries)) {
    if (!isObject(entry)) continue;
    const values = resentValues(fields, entry);
    if (values !== entry) (resent ??= { ...entries })[type] = values;
  }
  return resent ?? entries;
}

/** `raw` with its declared Integer fields' wide digits bare again (resentIntegers); `raw` itself when none is. */
function resentValues(fields: ReadonlyMap<string, RecordField>, raw: Json): Json {
  return resentIntegers(raw, integerNames(fields));
}

function* integerNames(fields: ReadonlyMap<string, RecordField>): Iterable<string> {
  for (const field of fields.values()) if (field.type === 'Integer') yield field.name;
}
