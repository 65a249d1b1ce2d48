/**
 * An entity as the service sends it (OData JSON) → a record: each declared field decoded to its
 * type (records/field-values.ts: a Json field over an Edm.String property is JSON text, parsed
 * here), and each typed group as one entry per type, from the expanded navigation or the complex
 * collection — entries of types the group does not declare are passed over, types a record lacks
 * are absent, and a record without entries has `{}`.
 */
import type { RecordData } from '../connection.js';
import { decoderFor, type Decoder } from '../records/field-values.js';
import type { BoundGroup, BoundObject } from './object-model.js';

type Decoders = ReadonlyArray<readonly [string, Decoder]>;

interface EntityDecoder {
  fields: Decoders;
  groups: ReadonlyArray<{ group: BoundGroup; fields: Decoders }>;
}

const decoders = new WeakMap<BoundObject, EntityDecoder>();

function fieldDecoders(fields: BoundGroup['fields']): Decoders {
  return [...fields.values()].map((bound) => [bound.field.name, decoderFor(bound.field.type)] as const);
}

function decoderOf(bound: BoundObject): EntityDecoder {
  let decoder = decoders.get(bound);
  if (decoder === undefined) {
    decoder = {
      fields: fieldDecoders(bound.fields),
      groups: [...bound.groups.values()].map((group) => ({ group, fields: fieldDecoders(group.fields) })),
    };
    decoders.set(bound, decoder);
  }
  return decoder;
}

function decodeFields(fields: Decoders, source: Record<string, unknown>): RecordData {
  const record: RecordData = {};
  for (const [name, decode] of fields) record[name] = decode(source[name]);
  return record;
}

/** The record of one entity of the object's entity set. */
export function decodeEntity(bound: BoundObject, entity: Record<string, unknown>): RecordData {
  const decoder = decoderOf(bound);
  const record = decodeFields(decoder.fields, entity);
  for (const { group, fields } of decoder.groups) {
    const entries: Record<string, RecordData> = {};
    const collection = entity[group.member];
    for (const entry of Array.isArray(collection) ? collection : []) {
      if (entry === null || typeof entry !== 'object') continue;
      const type = (entry as Record<string, unknown>)[group.typeField.name];
      const name = type === null || type === undefined ? undefined : String(type);
      if (name === undefined || !group.group.types.includes(name) || Object.hasOwn(entries, name)) continue;
      entries[name] = decodeFields(fields, entry as Record<string, unknown>);
    }
    record[group.group.name] = entries;
  }
  return record;
}
