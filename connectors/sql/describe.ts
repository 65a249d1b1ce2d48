/**
 * An object's description for callers (RunConnectionGetData's metadata, the OpenAPI document), from
 * the definition alone: no database round trip. A field of a read-only object or system is
 * described as read-only.
 */
import type { FieldDescription, ObjectDescription } from '../connection.js';
import type { SqlField, SqlObject } from './object-model.js';

function describeField(field: SqlField, readOnly: boolean): FieldDescription {
  return { name: field.name, type: field.type, required: field.required, readOnly: readOnly || field.readOnly };
}

export function describeObject(object: SqlObject): ObjectDescription {
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
