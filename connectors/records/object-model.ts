/**
 * A System's objects as every connector sees them: the key, the typed fields and the typed groups
 * of each object, built once per connection from the validated definition. What a connector adds
 * of its own (a table, an entity set, a file pattern) comes from `extend`, so each connector has
 * one model with its options typed, and the checks here — unknown objects and fields, group paths —
 * read and answer the same everywhere.
 *
 * Every field name a request uses (filter, order, id, write) is looked up here first; an
 * undeclared one is a ConnectorError naming the known fields.
 */
import type { FieldDefinition, FieldType, GroupDefinition, ObjectDefinition, SystemDefinition } from '../../definitions/types.js';
import { ConnectorError } from '../connector-error.js';

export interface RecordField {
  name: string;
  type: FieldType;
  required: boolean;
  readOnly: boolean;
  maxLength?: number;
}

export interface RecordGroup {
  name: string;
  types: readonly string[];
  fields: ReadonlyMap<string, RecordField>;
}

/** An object of a system; `G` is the group as its connector extends it. */
export interface RecordObject<G extends RecordGroup = RecordGroup> {
  name: string;
  systemId: string;
  key: readonly string[];
  fields: ReadonlyMap<string, RecordField>;
  groups: ReadonlyMap<string, G>;
  /** The object or its whole system refuses writes. */
  readOnly: boolean;
}

/** Where a field path of a filter or order points. */
export type FieldReference<G extends RecordGroup = RecordGroup> =
  | { kind: 'field'; field: RecordField }
  | { kind: 'group'; group: G; type: string; field: RecordField };

/** What a connector adds to each object and group, from their definitions' connector-specific options. */
export interface ModelExtension<O, G> {
  object(definition: ObjectDefinition, name: string): O;
  group(definition: GroupDefinition, name: string): G;
}

export function fieldsOf(definitions: Record<string, FieldDefinition>): Map<string, RecordField> {
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

/** The objects of a system by name, each with what `extend` adds of its connector's options. */
export function buildObjects<O extends object, G extends object>(
  system: SystemDefinition,
  extend: ModelExtension<O, G>,
): ReadonlyMap<string, RecordObject<RecordGroup & G> & O> {
  const objects = new Map<string, RecordObject<RecordGroup & G> & O>();
  for (const [name, definition] of Object.entries(system.objects ?? {})) {
    const groups = new Map<string, RecordGroup & G>();
    for (const [groupName, group] of Object.entries(definition.groups ?? {})) {
      groups.set(groupName, {
        name: groupName,
        types: [...group.types],
        fields: fieldsOf(group.fields),
        ...extend.group(group, groupName),
      });
    }
    objects.set(name, {
      name,
      systemId: system.id,
      key: [...definition.key],
      fields: fieldsOf(definition.fields),
      groups,
      readOnly: (system.readOnly ?? false) || (definition.readOnly ?? false),
      ...extend.object(definition, name),
    });
  }
  return objects;
}

export function objectNamed<T>(objects: ReadonlyMap<string, T>, systemId: string, name: string): T {
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

/** The object named, or the error objectNamed throws: for answers that carry errors rather than throw them. */
export function objectOrError<T>(objects: ReadonlyMap<string, T>, systemId: string, name: string): T | ConnectorError {
  try {
    return objectNamed(objects, systemId, name);
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
}

function knownFields(object: RecordObject): string {
  const groups = [...object.groups.values()].map((group) => `${group.name}.<${group.types.join('|')}>.<field>`);
  return [...object.fields.keys(), ...groups].join(', ');
}

export function unknownField(object: RecordObject, name: string, hint = ''): ConnectorError {
  return new ConnectorError('unknown-field', `${object.name} has no field '${name}'${hint}; its fields are ${knownFields(object)}`, {
    details: { object: object.name, field: name, known: [...object.fields.keys()] },
  });
}

/** A declared field of the object itself. */
export function fieldNamed(object: RecordObject, name: string): RecordField {
  const field = object.fields.get(name);
  if (field === undefined) throw unknownField(object, name);
  return field;
}

/**
 * A field path: `name` (a field of the object) or `group.type.field` (a field of the group entry of
 * that type, as records carry it: `addresses.main.city`).
 */
export function resolveFieldPath<G extends RecordGroup>(object: RecordObject<G>, path: readonly string[]): FieldReference<G> {
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
