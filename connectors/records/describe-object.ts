/**
 * An object's description for callers (RunConnectionGetData's metadata, the OpenAPI document), from
 * the definition alone: no round trip to the system. A field of a read-only object or system is
 * described as read-only.
 */
import type { FieldDescription, ObjectDescription } from '../connection.js';
import type { RecordField, RecordObject } from './object-model.js';

function describeField(field: RecordField, readOnly: boolean): FieldDescription {
  return { name: field.name, type: field.type, required: field.required, readOnly: readOnly || field.readOnly };
}

export function describeObject(object: RecordObject): ObjectDescription {
  return {
    name: object.name,
    key: [...object.key],
    fields: [...object.fields.values()].map((field) => describeField(field, object.readOnly)),
    groups: [...object.groups.values()].map((group) => ({
      name: group.name,
      types: [...group.types],
      fields: [...group.fields.values()].map((field) => describeField(field, object.readOnly)),
    })),
  };
}
