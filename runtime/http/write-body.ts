/**
 * The two write bodies. The full one (RunConnectionSetData) names each column with its type and
 * may address a typed group entry as `group[type].field`; `idcolumns` identify the record to
 * update. The minimal one (RunConnectionSetDataMin) is a flat object and cannot say a group type,
 * so a group there is refused with a pointer to the full write.
 *
 * Their shapes are JSON Schemas (body-schema.ts), which the interface description publishes; what
 * only the object's definition can say — its fields, groups and types — is checked here after.
 */
import type { ObjectDescription, WriteRequest } from '../../connectors/connection.js';
import { fieldTypes, type FieldType } from '../../definitions/types.js';
import { HttpProblem } from '../errors.js';
import { notBlank } from './body-messages.js';
import { escapePointer } from '../request/json-pointer.js';
import { requestBody, type Finding } from './body-schema.js';
import { invalid } from './read-parameters.js';

const groupColumn = /^([A-Za-z_][A-Za-z0-9_]*)\[([A-Za-z0-9_-]+)\]\.([A-Za-z_][A-Za-z0-9_]*)$/;

interface Column {
  name: string;
  columnType?: FieldType;
  value: unknown;
}

export const columnSchema = {
  type: 'object',
  required: ['name', 'value'],
  properties: {
    name: {
      type: 'string',
      pattern: notBlank,
      title: 'a field of the object, or group[type].field',
      description: 'A field, or group[type].field for a typed group entry, e.g. addresses[main].city.',
    },
    columnType: { enum: [...fieldTypes], description: "The field's declared type (any case); it must match the definition." },
    value: { description: 'The value to set; null clears the field.' },
  },
  additionalProperties: false,
};

/** Most columns one write sets or matches on: more than an object has fields and group entry fields. */
export const maxColumns = 2000;

export const fullWriteBody = requestBody<{ name?: string | null; columns: Column[]; idcolumns?: Column[] | null }>(
  {
    type: 'object',
    required: ['columns'],
    properties: {
      name: { type: ['string', 'null'], description: 'Object name; must equal the {object_type} of the URL.' },
      columns: { type: 'array', minItems: 1, maxItems: maxColumns, items: columnSchema },
      idcolumns: {
        type: ['array', 'null'],
        maxItems: maxColumns,
        items: columnSchema,
        description: 'Fields identifying the record to update; default the object key.',
      },
    },
    additionalProperties: false,
  },
  { message: columnMessage },
);

/** The minimal write's body: the object's fields as properties, checked against its definition below. */
export const minimalWriteBody = requestBody<Record<string, unknown>>({
  type: 'object',
  title: 'a flat JSON object of field names and values, e.g. {"name": "Ada"}',
  additionalProperties: true,
});

/** A column's findings said as the service always said them: naming the column and the fix. */
function columnMessage({ path, value, body, message }: Finding): string {
  const column = /^\/(columns|idcolumns)\/(\d+)\/(value|columnType)$/.exec(path);
  if (column === null) return message;
  const name =
    ((body as Record<string, Array<{ name?: unknown }>>)[column[1]!]?.[Number(column[2])]?.name as string | undefined) ?? `${column[2]}`;
  if (column[3] === 'value') return `Column ${name} needs a value (null to clear it).`;
  return `columnType ${typeof value === 'string' ? `'${value}'` : JSON.stringify(value)} is not a type; use one of ${fieldTypes.join(', ')}.`;
}

export function parseFullWrite(body: unknown, object: ObjectDescription): WriteRequest {
  const parsed = fullWriteBody.parse(body);
  if (parsed.name != null && parsed.name !== object.name) {
    throw invalid('/name', `The body names object '${parsed.name}', but the URL names '${object.name}'.`);
  }
  const columns = parsed.columns;
  const idColumns = parsed.idcolumns ?? [];
  const values: Record<string, unknown> = {};
  const groups: Record<string, Record<string, Record<string, unknown>>> = {};
  columns.forEach((column, index) => {
    const path = `/columns/${index}`;
    const grouped = groupColumn.exec(column.name);
    if (grouped) {
      const [, groupName, type, field] = grouped as unknown as [string, string, string, string];
      const group = object.groups.find((g) => g.name === groupName);
      if (!group) throw unknownField(`${path}/name`, object, `'${groupName}' is not a group of ${object.name}`);
      if (!group.types.includes(type))
        throw invalid(`${path}/name`, `Group ${groupName} has the types ${group.types.join(', ')}, not '${type}'.`);
      const declared = group.fields.find((f) => f.name === field);
      if (!declared)
        throw unknownField(
          `${path}/name`,
          object,
          `group ${groupName} has no field '${field}' (it has ${group.fields.map((f) => f.name).join(', ')})`,
        );
      checkColumnType(column, declared.type, `${path}/columnType`);
      const entry = ((groups[groupName] ??= {})[type] ??= {});
      if (Object.hasOwn(entry, field)) throw invalid(`${path}/name`, `Column ${column.name} is given twice.`);
      entry[field] = column.value;
      return;
    }
    const declared = object.fields.find((f) => f.name === column.name);
    if (!declared) throw unknownField(`${path}/name`, object, `${object.name} has no field '${column.name}'`);
    checkColumnType(column, declared.type, `${path}/columnType`);
    if (column.name in values) throw invalid(`${path}/name`, `Column ${column.name} is given twice.`);
    values[column.name] = column.value;
  });
  const match: Record<string, unknown> = {};
  idColumns.forEach((column, index) => {
    const declared = object.fields.find((f) => f.name === column.name);
    if (!declared) throw unknownField(`/idcolumns/${index}/name`, object, `${object.name} has no field '${column.name}'`);
    checkColumnType(column, declared.type, `/idcolumns/${index}/columnType`);
    // Two values for one key field would leave one of them unused, and the write would match by the other.
    if (Object.hasOwn(match, column.name)) throw invalid(`/idcolumns/${index}/name`, `Id column ${column.name} is given twice.`);
    match[column.name] = column.value;
  });
  return { values, ...(Object.keys(groups).length ? { groups } : {}), ...(idColumns.length ? { match } : {}) };
}

export function parseMinimalWrite(body: unknown, object: ObjectDescription): WriteRequest {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(minimalWriteBody.parse(body))) {
    const groupName = groupColumn.exec(name)?.[1] ?? name.split('.')[0]!;
    if (object.groups.some((g) => g.name === groupName)) {
      throw new HttpProblem(
        'group-needs-full-write',
        `'${name}' belongs to the typed group ${groupName}, whose type the minimal write cannot express; write it with RunConnectionSetData as a column '${groupName}[<type>].<field>'.`,
        {
          errors: [{ path: `/${escapePointer(name)}`, message: 'typed group fields need RunConnectionSetData' }],
        },
      );
    }
    if (!object.fields.some((f) => f.name === name))
      throw unknownField(`/${escapePointer(name)}`, object, `${object.name} has no field '${name}'`);
    values[name] = value;
  }
  return { values };
}

/** A given columnType (in the schema's spelling by now) must name the field's declared type; the definition is the authority. */
function checkColumnType(column: Column, declared: FieldType, path: string): void {
  if (column.columnType === undefined || column.columnType === declared) return;
  throw invalid(path, `Column ${column.name} is declared ${declared}; columnType ${column.columnType} does not match.`);
}

function unknownField(path: string, object: ObjectDescription, message: string): HttpProblem {
  const known = [...object.fields.map((f) => f.name), ...object.groups.map((g) => `${g.name}[type].field`)];
  return new HttpProblem('unknown-field', `${message}. Fields: ${known.join(', ')}.`, { errors: [{ path, message }] });
}
