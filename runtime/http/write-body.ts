/**
 * The two write bodies. The full one (RunConnectionSetData) names each column with its type and
 * may address a typed group entry as `group[type].field`; `idcolumns` identify the record to
 * update. The minimal one (RunConnectionSetDataMin) is a flat object and cannot say a group type,
 * so a group there is refused with a pointer to the full write.
 */
import type { ObjectDescription, WriteRequest } from '../../connectors/connection.js';
import { fieldTypes, type FieldType } from '../../definitions/types.js';
import { HttpProblem } from '../errors.js';
import { invalid } from './read-parameters.js';

const groupColumn = /^([A-Za-z_][A-Za-z0-9_]*)\[([A-Za-z0-9_-]+)\]\.([A-Za-z_][A-Za-z0-9_]*)$/;

interface Column {
  name: string;
  columnType?: string;
  value: unknown;
}

export function parseFullWrite(body: unknown, object: ObjectDescription): WriteRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('', 'The body must be an object {"name": ..., "columns": [...], "idcolumns": [...]}.');
  }
  const record = body as Record<string, unknown>;
  const name = record.name ?? record.Name;
  if (name !== undefined && name !== object.name) {
    throw invalid('/name', `The body names object '${String(name)}', but the URL names '${object.name}'.`);
  }
  const columns = columnList(record.columns ?? record.Columns, '/columns', true);
  const idColumns = columnList(record.idcolumns ?? record.idColumns ?? record.IdColumns, '/idcolumns', false);
  const values: Record<string, unknown> = {};
  const groups: Record<string, Record<string, Record<string, unknown>>> = {};
  columns.forEach((column, index) => {
    const path = `/columns/${index}`;
    const grouped = groupColumn.exec(column.name);
    if (grouped) {
      const [, groupName, type, field] = grouped as unknown as [string, string, string, string];
      const group = object.groups.find((g) => g.name === groupName);
      if (!group) throw unknownField(`${path}/name`, object, `'${groupName}' is not a group of ${object.name}`);
      if (!group.types.includes(type)) throw invalid(`${path}/name`, `Group ${groupName} has the types ${group.types.join(', ')}, not '${type}'.`);
      const declared = group.fields.find((f) => f.name === field);
      if (!declared) throw unknownField(`${path}/name`, object, `group ${groupName} has no field '${field}' (it has ${group.fields.map((f) => f.name).join(', ')})`);
      checkColumnType(column, declared.type, `${path}/columnType`);
      ((groups[groupName] ??= {})[type] ??= {})[field] = column.value;
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
    match[column.name] = column.value;
  });
  return { values, ...(Object.keys(groups).length ? { groups } : {}), ...(idColumns.length ? { match } : {}) };
}

export function parseMinimalWrite(body: unknown, object: ObjectDescription): WriteRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('', 'The body must be a flat JSON object of field names and values, e.g. {"name": "Ada"}.');
  }
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    const groupName = groupColumn.exec(name)?.[1] ?? name.split('.')[0]!;
    if (object.groups.some((g) => g.name === groupName)) {
      throw new HttpProblem('group-needs-full-write', `'${name}' belongs to the typed group ${groupName}, whose type the minimal write cannot express; write it with RunConnectionSetData as a column '${groupName}[<type>].<field>'.`, {
        errors: [{ path: `/${escapePointer(name)}`, message: 'typed group fields need RunConnectionSetData' }],
      });
    }
    if (!object.fields.some((f) => f.name === name)) throw unknownField(`/${escapePointer(name)}`, object, `${object.name} has no field '${name}'`);
    values[name] = value;
  }
  return { values };
}

function columnList(value: unknown, path: string, required: boolean): Column[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value) || (required && value.length === 0)) {
    throw invalid(path, `${path.slice(1)} must be a ${required ? 'non-empty ' : ''}array of {"name", "columnType", "value"} objects.`);
  }
  return value.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null) throw invalid(`${path}/${index}`, 'Each column is an object {"name", "columnType", "value"}.');
    const column = item as Record<string, unknown>;
    const name = column.name ?? column.Name;
    const columnType = column.columnType ?? column.ColumnType;
    if (typeof name !== 'string' || name === '') throw invalid(`${path}/${index}/name`, 'A column needs a name.');
    if (columnType !== undefined && typeof columnType !== 'string') throw invalid(`${path}/${index}/columnType`, 'columnType must be a string.');
    if (!('value' in column) && !('Value' in column)) throw invalid(`${path}/${index}/value`, `Column ${name} needs a value (null to clear it).`);
    return { name, columnType: columnType as string | undefined, value: column.value ?? column.Value ?? null };
  });
}

/** A given columnType must name the field's declared type (any case); the definition is the authority. */
function checkColumnType(column: Column, declared: FieldType, path: string): void {
  if (column.columnType === undefined) return;
  const named = fieldTypes.find((t) => t.toLowerCase() === column.columnType!.toLowerCase());
  if (!named) throw invalid(path, `columnType '${column.columnType}' is not a type; use one of ${fieldTypes.join(', ')}.`);
  if (named !== declared) throw invalid(path, `Column ${column.name} is declared ${declared}; columnType ${column.columnType} does not match.`);
}

function unknownField(path: string, object: ObjectDescription, message: string): HttpProblem {
  const known = [...object.fields.map((f) => f.name), ...object.groups.map((g) => `${g.name}[type].field`)];
  return new HttpProblem('unknown-field', `${message}. Fields: ${known.join(', ')}.`, { errors: [{ path, message }] });
}

function escapePointer(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}
