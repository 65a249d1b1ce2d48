/**
 * A System's objects as the sql connector uses them: the table, key and typed fields of each
 * object, and of each typed group its child table, foreign key and type column. Built once per
 * connection from the validated definition. Every field name a request uses (filter, order, id,
 * write) is looked up here first; an undeclared one is a ConnectorError naming the known fields.
 */
import type { FieldDefinition, FieldType, ObjectDefinition, SystemDefinition } from '../../definitions/types.js';
import { ConnectorError } from '../connector-error.js';

export interface SqlField {
  name: string;
  type: FieldType;
  required: boolean;
  readOnly: boolean;
  maxLength?: number;
}

export interface SqlGroup {
  name: string;
  table: string;
  foreignKey: string;
  typeField: string;
  types: readonly string[];
  fields: ReadonlyMap<string, SqlField>;
}

export interface SqlObject {
  name: string;
  systemId: string;
  table: string;
  key: readonly string[];
  fields: ReadonlyMap<string, SqlField>;
  groups: ReadonlyMap<string, SqlGroup>;
  /** The object or its whole system refuses writes. */
  readOnly: boolean;
}

/** Where a field path of a filter or order points. */
export type FieldReference = { kind: 'field'; field: SqlField } | { kind: 'group'; group: SqlGroup; type: string; field: SqlField };

function fieldsOf(definitions: Record<string, FieldDefinition>): Map<string, SqlField> {
  return new Map(
    Object.entries(definitions).map(([name, field]) => [
      name,
      {
        name,
        type: field.type,
        required: field.required ?? false,
        readOnly: field.readOnly ?? false,
        ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }),
      },
    ]),
  );
}

function objectOf(system: SystemDefinition, name: string, definition: ObjectDefinition): SqlObject {
  const groups = new Map<string, SqlGroup>();
  for (const [groupName, group] of Object.entries(definition.groups ?? {})) {
    groups.set(groupName, {
      name: groupName,
      table: String(group.table),
      foreignKey: String(group.foreignKey),
      typeField: typeof group.typeField === 'string' ? group.typeField : 'type',
      types: [...group.types],
      fields: fieldsOf(group.fields),
    });
  }
  return {
    name,
    systemId: system.id,
    table: String(definition.table),
    key: [...definition.key],
    fields: fieldsOf(definition.fields),
    groups,
    readOnly: (system.readOnly ?? false) || (definition.readOnly ?? false),
  };
}

export function buildObjects(system: SystemDefinition): ReadonlyMap<string, SqlObject> {
  return new Map(Object.entries(system.objects ?? {}).map(([name, definition]) => [name, objectOf(system, name, definition)]));
}

export function objectNamed(objects: ReadonlyMap<string, SqlObject>, systemId: string, name: string): SqlObject {
  const object = objects.get(name);
  if (object === undefined) {
    const known = [...objects.keys()].sort();
    throw new ConnectorError(
      'unknown-object',
      `system '${systemId}' has no object '${name}'${known.length ? `; its objects are ${known.join(', ')}` : ''}`,
      {
        details: { object: name, known },
      },
    );
  }
  return object;
}

function knownFields(object: SqlObject): string {
  const groups = [...object.groups.values()].map((group) => `${group.name}.<${group.types.join('|')}>.<field>`);
  return [...object.fields.keys(), ...groups].join(', ');
}

export function unknownField(object: SqlObject, name: string, hint = ''): ConnectorError {
  return new ConnectorError('unknown-field', `${object.name} has no field '${name}'${hint}; its fields are ${knownFields(object)}`, {
    details: { object: object.name, field: name, known: [...object.fields.keys()] },
  });
}

/** A declared field of the object itself. */
export function fieldNamed(object: SqlObject, name: string): SqlField {
  const field = object.fields.get(name);
  if (field === undefined) throw unknownField(object, name);
  return field;
}

/**
 * A field path: `name` (a field of the object) or `group.type.field` (a field of the group entry of
 * that type, as records carry it: `addresses.main.city`).
 */
export function resolveFieldPath(object: SqlObject, path: readonly string[]): FieldReference {
  const [first, second, third] = path;
  if (path.length === 1 && first !== undefined) return { kind: 'field', field: fieldNamed(object, first) };
  const group = first === undefined ? undefined : object.groups.get(first);
  const dotted = path.join('.');
  if (group === undefined) throw unknownField(object, dotted);
  if (path.length === 2 && second !== undefined && group.fields.has(second)) {
    throw unknownField(
      object,
      dotted,
      `; name the group type: ${group.types.map((type) => `${group.name}.${type}.${second}`).join(' or ')}`,
    );
  }
  if (path.length !== 3 || second === undefined || third === undefined || !group.types.includes(second)) {
    throw unknownField(object, dotted, `; group fields are written ${group.name}.<type>.<field> with type ${group.types.join(' or ')}`);
  }
  const field = group.fields.get(third);
  if (field === undefined) throw unknownField(object, dotted, `; the fields of ${group.name} are ${[...group.fields.keys()].join(', ')}`);
  return { kind: 'group', group, type: second, field };
}

/** The single key field a group's foreign key refers to. */
export function groupParentKey(object: SqlObject): string {
  const [key, ...more] = object.key;
  if (key === undefined || more.length > 0) {
    throw new ConnectorError(
      'unsupported',
      `${object.name} has typed groups but a key of ${object.key.length} fields; the sql connector joins groups on a single key field`,
      {
        details: { connector: 'sql', construct: 'typed groups on a composite key' },
      },
    );
  }
  return key;
}
