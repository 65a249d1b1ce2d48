/**
 * The odata connector's objects: the shared record model (records/object-model.ts) with an entity
 * set per object and, per typed group, the collection holding its entries — a navigation property
 * (`navigation: addresses`, entries are entities of their own) or a collection of complex type
 * (`property: addresses`) — and the property of an entry holding its type (`typeField`).
 *
 * `bindObject` joins an object to the service's $metadata once it is known: the entity type, the
 * service's own key (which addresses an entity, `Customers(7)`), the Edm type of every declared
 * field. What the definition declares and the service lacks — an entity set, a property, a type
 * that cannot hold the property's values — is a ConnectorError 'definition-mismatch' naming it:
 * the operator's fix, answered 500.
 */
import type { SystemDefinition } from '../../definitions/types.js';
import { ConnectorError } from '../connector-error.js';
import { buildObjects, type RecordField, type RecordGroup, type RecordObject } from '../records/object-model.js';
import { canHold, edmClass, edmTypeText, type EdmClass } from './edm-types.js';
import type { KeyPart } from './odata-literals.js';
import type { EdmProperty, EdmStructuredType, ServiceModel } from './parse-metadata.js';

export interface ODataGroup extends RecordGroup {
  /** A collection-valued navigation property holding the entries. */
  navigation: string | undefined;
  /** A collection of complex type holding the entries (when there is no `navigation`). */
  property: string | undefined;
  typeField: string;
}

export interface ODataObject extends RecordObject<ODataGroup> {
  entitySet: string;
}

export function buildODataObjects(system: SystemDefinition): ReadonlyMap<string, ODataObject> {
  return buildObjects(system, {
    object: (definition) => ({ entitySet: String(definition.entitySet) }),
    group: (definition) => ({
      navigation: typeof definition.navigation === 'string' ? definition.navigation : undefined,
      property: typeof definition.property === 'string' ? definition.property : undefined,
      typeField: typeof definition.typeField === 'string' ? definition.typeField : 'type',
    }),
  });
}

/** A declared field with the Edm type of its property. */
export interface BoundField {
  field: RecordField;
  property: EdmProperty;
  edm: EdmClass;
}

export interface BoundGroup {
  group: ODataGroup;
  /** The navigation property or complex collection property. */
  member: string;
  kind: 'navigation' | 'complex';
  type: EdmStructuredType;
  typeField: { name: string; edm: EdmClass };
  fields: ReadonlyMap<string, BoundField>;
  /** The entry entity's key (navigation groups), to address an entry for an update. */
  entryKey: readonly KeyPart[];
}

export interface BoundObject {
  object: ODataObject;
  systemId: string;
  entitySet: string;
  type: EdmStructuredType;
  /** The key the service addresses an entity by (`Customers(7)`), which may differ from the declared key. */
  serviceKey: readonly KeyPart[];
  /** The declared key is the service's key: a record is read by id as `Set(key)`. */
  keyIsServiceKey: boolean;
  fields: ReadonlyMap<string, BoundField>;
  groups: ReadonlyMap<string, BoundGroup>;
}

function mismatch(object: ODataObject, what: string, fix: string, details: Record<string, unknown> = {}): ConnectorError {
  return new ConnectorError('definition-mismatch', `system '${object.systemId}', object ${object.name}: ${what}; ${fix}`, {
    details: { system: object.systemId, object: object.name, ...details },
  });
}

const listed = (names: Iterable<string>): string => [...names].sort().join(', ') || 'none';

function bindFields(
  object: ODataObject,
  fields: ReadonlyMap<string, RecordField>,
  type: EdmStructuredType,
  where: string,
): Map<string, BoundField> {
  const bound = new Map<string, BoundField>();
  for (const field of fields.values()) {
    const property = type.properties.get(field.name);
    if (property === undefined) {
      throw mismatch(
        object,
        `${where} declares field '${field.name}', but the service's type ${type.name} has no property of that name (its properties are ${listed(type.properties.keys())})`,
        'correct the field name in the System definition',
        { field: field.name },
      );
    }
    if (!canHold(field.type, property.type, property.collection)) {
      const edm = edmTypeText(property.type, property.collection);
      throw mismatch(
        object,
        `${where} declares field '${field.name}' as ${field.type}, which cannot hold the service's ${edm}`,
        'declare the type the property has (docs/connectors/odata.md lists which types hold which Edm types)',
        { field: field.name, declared: field.type, edmType: edm },
      );
    }
    bound.set(field.name, { field, property, edm: edmClass(property.type, property.collection) });
  }
  return bound;
}

function keyParts(object: ODataObject, type: EdmStructuredType): KeyPart[] {
  return type.key.map((name) => {
    const property = type.properties.get(name);
    if (property === undefined) throw mismatch(object, `the key property '${name}' of ${type.name} is not a property`, 'check the service');
    return { name, edm: edmClass(property.type, property.collection) };
  });
}

function bindGroup(object: ODataObject, group: ODataGroup, type: EdmStructuredType, model: ServiceModel): BoundGroup {
  const where = `group ${group.name}`;
  let member: string;
  let kind: BoundGroup['kind'];
  let entryType: EdmStructuredType | undefined;
  if (group.navigation !== undefined) {
    member = group.navigation;
    kind = 'navigation';
    const navigation = type.navigations.get(member);
    if (navigation === undefined || !navigation.collection) {
      throw mismatch(
        object,
        `${where} names navigation '${member}', which is not a collection-valued navigation property of ${type.name} (those are ${listed([...type.navigations.values()].filter((n) => n.collection).map((n) => n.name))})`,
        'correct navigation in the System definition',
        { group: group.name },
      );
    }
    entryType = model.types.get(navigation.type);
  } else {
    member = group.property ?? group.name;
    kind = 'complex';
    const property = type.properties.get(member);
    entryType = property?.collection ? model.types.get(property.type) : undefined;
    if (entryType?.kind !== 'complex') {
      throw mismatch(
        object,
        `${where} names property '${member}', which is not a collection of complex type of ${type.name}`,
        'name a navigation property (navigation:) or a collection of complex type (property:) in the System definition',
        { group: group.name },
      );
    }
  }
  if (entryType === undefined)
    throw mismatch(object, `${where}: the service does not describe the type of '${member}'`, 'check the service');
  const typeProperty = entryType.properties.get(group.typeField);
  const typeEdm = typeProperty === undefined ? 'other' : edmClass(typeProperty.type, typeProperty.collection);
  if (typeEdm !== 'text' && typeEdm !== 'integer') {
    throw mismatch(
      object,
      `${where}: typeField '${group.typeField}' is not a text or integer property of ${entryType.name} (its properties are ${listed(entryType.properties.keys())})`,
      'name the property holding the entry type in typeField',
      { group: group.name },
    );
  }
  return {
    group,
    member,
    kind,
    type: entryType,
    typeField: { name: group.typeField, edm: typeEdm },
    fields: bindFields(object, group.fields, entryType, where),
    entryKey: kind === 'navigation' ? keyParts(object, entryType) : [],
  };
}

/** The object joined to the service's model; throws 'definition-mismatch' for what the service lacks. */
export function bindObject(object: ODataObject, model: ServiceModel): BoundObject {
  const set = model.entitySets.get(object.entitySet);
  if (set === undefined) {
    throw mismatch(
      object,
      `the service has no entity set '${object.entitySet}' (its $metadata lists ${listed(model.entitySets.keys())})`,
      'correct entitySet in the System definition',
      { entitySet: object.entitySet },
    );
  }
  const type = model.types.get(set.type);
  if (type === undefined) throw mismatch(object, `the service does not describe the type of entity set '${set.name}'`, 'check the service');
  const serviceKey = keyParts(object, type);
  const fields = bindFields(object, object.fields, type, 'the object');
  const groups = new Map([...object.groups.values()].map((group) => [group.name, bindGroup(object, group, type, model)] as const));
  const keyIsServiceKey = serviceKey.length === object.key.length && serviceKey.every((part, index) => part.name === object.key[index]);
  return {
    object,
    systemId: object.systemId,
    entitySet: set.name,
    type,
    serviceKey,
    keyIsServiceKey,
    fields,
    groups,
  };
}
