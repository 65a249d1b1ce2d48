/** JSON Schemas of records, from the declared fields and typed groups of each object. */
import type { FieldDefinition, FieldType, ObjectDefinition } from '../../../definitions/types.js';

const typeSchemas: Record<FieldType, Record<string, unknown>> = {
  String: { type: ['string', 'null'] },
  Integer: { type: ['integer', 'null'] },
  Number: { type: ['number', 'null'] },
  Boolean: { type: ['boolean', 'null'] },
  Date: { type: ['string', 'null'], format: 'date' },
  DateTime: { type: ['string', 'null'], format: 'date-time' },
  Json: {},
};

/** The JSON Schema of a value of `type` (nullable, as every field and column may be empty). */
export function typeSchema(type: FieldType): Record<string, unknown> {
  return { ...typeSchemas[type] };
}

export function fieldSchema(field: FieldDefinition): Record<string, unknown> {
  return {
    ...typeSchemas[field.type],
    ...(field.description ? { description: field.description } : {}),
    ...(field.readOnly ? { readOnly: true } : {}),
    ...(field.maxLength ? { maxLength: field.maxLength } : {}),
  };
}

function fieldsSchema(fields: Record<string, FieldDefinition>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, fieldSchema(field)]));
}

/** A record as read: fields, and each group as `{type: entry}`. */
export function recordSchema(name: string, object: ObjectDefinition): Record<string, unknown> {
  const groups = Object.entries(object.groups ?? {}).map(([groupName, group]) => [
    groupName,
    {
      type: 'object',
      description: `Typed group ${groupName}: one entry per type (${group.types.join(', ')}).`,
      properties: Object.fromEntries(
        group.types.map((type) => [type, { type: 'object', properties: fieldsSchema(group.fields), additionalProperties: false }]),
      ),
      additionalProperties: false,
    },
  ]);
  // A record as read holds the declared fields and groups and nothing else, which is also what
  // tells the records of different objects apart in a response that may hold either.
  return {
    type: 'object',
    title: name,
    ...(object.description ? { description: object.description } : {}),
    properties: { ...fieldsSchema(object.fields), ...Object.fromEntries(groups) },
    additionalProperties: false,
  };
}

export function recordSchemaName(system: string, object: string): string {
  return `Record.${system}.${object}`;
}
