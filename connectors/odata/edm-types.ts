/**
 * Edm primitive types against our field types: which field type a property is discovered as,
 * which declared types can hold a property of a given Edm type, and how the class of a type
 * decides the literals of a filter.
 *
 * | Edm type                                   | discovered as | may be declared as   |
 * |--------------------------------------------|---------------|----------------------|
 * | Edm.String, Edm.Guid                       | String        | String, Json         |
 * | Edm.Byte, SByte, Int16, Int32, Int64       | Integer       | Integer, Number, Json|
 * | Edm.Decimal, Edm.Double, Edm.Single        | Number        | Number, Json         |
 * | Edm.Boolean                                | Boolean       | Boolean, Json        |
 * | Edm.Date                                   | Date          | Date, Json           |
 * | Edm.DateTimeOffset                         | DateTime      | DateTime, Json       |
 * | anything else (complex, collections, enum, | Json          | Json                 |
 * |   TimeOfDay, Duration, Binary, geo…)       |               |                      |
 *
 * Json holds anything: an Edm.String property declared Json carries JSON text (written as text,
 * read back parsed), anything else is passed as the service gives it.
 */
import type { FieldType } from '../../definitions/types.js';

export type EdmClass = 'text' | 'guid' | 'integer' | 'decimal' | 'double' | 'boolean' | 'date' | 'datetime' | 'other';

const CLASSES: Readonly<Record<string, EdmClass>> = {
  'Edm.String': 'text',
  'Edm.Guid': 'guid',
  'Edm.Byte': 'integer',
  'Edm.SByte': 'integer',
  'Edm.Int16': 'integer',
  'Edm.Int32': 'integer',
  'Edm.Int64': 'integer',
  'Edm.Decimal': 'decimal',
  'Edm.Double': 'double',
  'Edm.Single': 'double',
  'Edm.Boolean': 'boolean',
  'Edm.Date': 'date',
  'Edm.DateTimeOffset': 'datetime',
};

/** The class of a property's (element) type; `other` for anything that is not a plain scalar. */
export function edmClass(type: string, collection = false): EdmClass {
  return collection ? 'other' : (CLASSES[type] ?? 'other');
}

const DISCOVERED: Readonly<Record<EdmClass, FieldType>> = {
  text: 'String',
  guid: 'String',
  integer: 'Integer',
  decimal: 'Number',
  double: 'Number',
  boolean: 'Boolean',
  date: 'Date',
  datetime: 'DateTime',
  other: 'Json',
};

/** The field type a property of this Edm type is discovered as. */
export function discoveredType(type: string, collection = false): FieldType {
  return DISCOVERED[edmClass(type, collection)];
}

const HOLDS: Readonly<Record<FieldType, readonly EdmClass[]>> = {
  String: ['text', 'guid'],
  Integer: ['integer'],
  Number: ['integer', 'decimal', 'double'],
  Boolean: ['boolean'],
  Date: ['date'],
  DateTime: ['datetime'],
  Json: ['text', 'guid', 'integer', 'decimal', 'double', 'boolean', 'date', 'datetime', 'other'],
};

/** Whether a field declared `declared` can hold the property's values (and be filtered by their meaning). */
export function canHold(declared: FieldType, type: string, collection = false): boolean {
  return HOLDS[declared].includes(edmClass(type, collection));
}

/** The Edm type as a person reads it in a message: `Edm.Int32`, `Collection(CrmService.Address)`. */
export function edmTypeText(type: string, collection = false): string {
  return collection ? `Collection(${type})` : type;
}
