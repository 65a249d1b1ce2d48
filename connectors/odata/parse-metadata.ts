/**
 * A service's `$metadata` (CSDL XML, OData v4) read into what the connector needs: its entity sets,
 * their entity types with keys, properties (Edm type, nullable) and navigation properties, and
 * complex types; a document of another OData version than 4 is refused. Parsed with fast-xml-parser;
 * annotations, actions, functions and singletons are not needed and are passed over.
 *
 * Names are qualified (`CrmService.Customers`); a schema's alias (`Alias="crm"`) is read back to its
 * namespace, and a type definition to its underlying primitive type, so that every type name the
 * connector meets is either `Edm.*` or a qualified name of this model. A base type's keys,
 * properties and navigation properties are inherited, base first.
 *
 * A document past the limits below is refused. Each type holds its inherited members in maps of its
 * own, which the connector reads whole: a BaseType chain of 30,000 types, 3 MB of XML, would hold
 * 450 million of them.
 */
import { XMLParser } from 'fast-xml-parser';

export interface EdmProperty {
  name: string;
  /** The element type, qualified: `Edm.String`, `CrmService.Address`. */
  type: string;
  /** `Collection(…)` of `type`. */
  collection: boolean;
  nullable: boolean;
}

export interface EdmNavigation {
  name: string;
  /** The related entity type, qualified. */
  type: string;
  collection: boolean;
  nullable: boolean;
}

export interface EdmStructuredType {
  /** Qualified name. */
  name: string;
  kind: 'entity' | 'complex';
  /** Key property names in order; empty for complex types and keyless entity types. */
  key: string[];
  properties: Map<string, EdmProperty>;
  navigations: Map<string, EdmNavigation>;
}

export interface EdmEntitySet {
  name: string;
  /** Qualified entity type name. */
  type: string;
}

export interface ServiceModel {
  entitySets: Map<string, EdmEntitySet>;
  types: Map<string, EdmStructuredType>;
  /** Qualified names of enumeration types. */
  enums: Set<string>;
}

/** What the connector says when the document is not CSDL it can read. */
export class MetadataFormatError extends Error {
  override name = 'MetadataFormatError';
}

/** A document past one of the limits on a model's size, which no real service's model comes near. */
export class MetadataLimitError extends MetadataFormatError {
  override name = 'MetadataLimitError';
}

/** Most BaseType levels above a type; a real model has a handful (Microsoft Graph v1.0: 4). */
export const maxInheritanceDepth = 100;

/** Most entity and complex types in a document (Microsoft Graph v1.0 declares 2,962). */
export const maxStructuredTypes = 50_000;

/**
 * Most properties and navigation properties the types hold together, an inherited one counted in
 * every type that inherits it: the size of the model in memory and the work of building it
 * (Microsoft Graph v1.0: 17,683).
 */
export const maxHeldProperties = 1_000_000;

type Node = Record<string, unknown>;

/** Elements that may repeat; everything else is a single child. */
const REPEATED = new Set([
  'Reference',
  'Include',
  'Schema',
  'EntityContainer',
  'EntitySet',
  'EntityType',
  'ComplexType',
  'EnumType',
  'TypeDefinition',
  'Property',
  'NavigationProperty',
  'PropertyRef',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseAttributeValue: false,
  parseTagValue: false,
  htmlEntities: false,
  isArray: (name, _path, _leaf, isAttribute) => !isAttribute && REPEATED.has(name),
});

const list = (value: unknown): Node[] => (Array.isArray(value) ? (value as Node[]) : []);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const COLLECTION = /^Collection\((.+)\)$/;

const figure = (count: number): string => count.toLocaleString('en');

interface RawType {
  node: Node;
  kind: 'entity' | 'complex';
  namespace: string;
}

/** Parses a `$metadata` document; throws MetadataFormatError when it is not one. */
export function parseMetadata(xml: string): ServiceModel {
  let document: Node;
  try {
    document = parser.parse(xml) as Node;
  } catch (error) {
    throw new MetadataFormatError('the document is not well-formed XML', { cause: error });
  }
  const edmx = document.Edmx as Node | undefined;
  const services = edmx?.DataServices as Node | undefined;
  if (edmx === undefined || services === undefined) throw new MetadataFormatError('the document has no edmx:Edmx/edmx:DataServices');
  const version = text(edmx.Version) ?? '4.0';
  if (!version.startsWith('4.')) throw new MetadataFormatError(`the document is OData version ${version}, not 4`);

  const schemas = list(services.Schema);
  // Alias → namespace, so that `crm.Customer` and `CrmService.Customer` are one name.
  const aliases = new Map<string, string>();
  for (const schema of schemas) {
    const namespace = text(schema.Namespace);
    const alias = text(schema.Alias);
    if (namespace !== undefined && alias !== undefined) aliases.set(alias, namespace);
  }
  const qualify = (name: string): string => {
    const dot = name.lastIndexOf('.');
    if (dot < 0) return name;
    const prefix = name.slice(0, dot);
    return `${aliases.get(prefix) ?? prefix}${name.slice(dot)}`;
  };

  const raw = new Map<string, RawType>();
  const enums = new Set<string>();
  const definitions = new Map<string, string>();
  for (const schema of schemas) {
    const namespace = text(schema.Namespace) ?? '';
    for (const node of list(schema.EntityType)) raw.set(`${namespace}.${text(node.Name)}`, { node, kind: 'entity', namespace });
    for (const node of list(schema.ComplexType)) raw.set(`${namespace}.${text(node.Name)}`, { node, kind: 'complex', namespace });
    for (const node of list(schema.EnumType)) enums.add(`${namespace}.${text(node.Name)}`);
    for (const node of list(schema.TypeDefinition)) {
      const underlying = text(node.UnderlyingType);
      if (underlying !== undefined) definitions.set(`${namespace}.${text(node.Name)}`, qualify(underlying));
    }
  }
  /** A type reference as the model names it: qualified, a type definition read as its primitive type. */
  const typeName = (reference: string): { type: string; collection: boolean } => {
    const match = COLLECTION.exec(reference);
    const element = qualify(match ? match[1]! : reference);
    return { type: definitions.get(element) ?? element, collection: match !== null };
  };

  if (raw.size > maxStructuredTypes) {
    throw new MetadataLimitError(
      `the document declares ${figure(raw.size)} entity and complex types, over the limit of ${figure(maxStructuredTypes)}`,
    );
  }

  /** A type with what it inherits, its own members declared after (or over) its base's. */
  const build = (name: string, source: RawType, inherited: EdmStructuredType | undefined): EdmStructuredType => {
    const structured: EdmStructuredType = {
      name,
      kind: source.kind,
      key: [...(inherited?.key ?? [])],
      properties: new Map(inherited?.properties),
      navigations: new Map(inherited?.navigations),
    };
    const keyNode = source.node.Key as Node | undefined;
    if (keyNode !== undefined) structured.key = list(keyNode.PropertyRef).map((ref) => text(ref.Name) ?? '');
    for (const property of list(source.node.Property)) {
      const name = text(property.Name);
      const declared = text(property.Type);
      if (name === undefined || declared === undefined) continue;
      structured.properties.set(name, { name, ...typeName(declared), nullable: text(property.Nullable) !== 'false' });
    }
    for (const navigation of list(source.node.NavigationProperty)) {
      const name = text(navigation.Name);
      const declared = text(navigation.Type);
      if (name === undefined || declared === undefined) continue;
      const { type, collection } = typeName(declared);
      structured.navigations.set(name, { name, type, collection, nullable: collection || text(navigation.Nullable) !== 'false' });
    }
    return structured;
  };

  // Bases are built before what derives from them: each type's chain is walked up in a list, not by
  // recursion, to the first type already built, so no chain costs stack or is walked twice. A chain
  // that comes back to a type of its own walk (a cycle) inherits nothing where it closes.
  const types = new Map<string, EdmStructuredType>();
  const depths = new Map<string, number>();
  let held = 0;
  for (const start of raw.keys()) {
    if (types.has(start)) continue;
    const chain: string[] = [];
    const walked = new Set<string>();
    let above: string | undefined = start;
    while (above !== undefined && !types.has(above) && !walked.has(above) && raw.has(above)) {
      chain.push(above);
      walked.add(above);
      const base = text(raw.get(above)!.node.BaseType);
      above = base === undefined ? undefined : qualify(base);
    }
    let inherited = above === undefined ? undefined : types.get(above);
    let depth = inherited === undefined ? 0 : depths.get(inherited.name)! + 1;
    // Refused before any of the chain is built: the first type walked is its deepest.
    const deepest = depth + chain.length - 1;
    if (deepest > maxInheritanceDepth) {
      throw new MetadataLimitError(
        `type ${start} has ${figure(deepest)} levels of BaseType above it, over the limit of ${figure(maxInheritanceDepth)}`,
      );
    }
    for (const name of chain.reverse()) {
      const structured = build(name, raw.get(name)!, inherited);
      held += structured.properties.size + structured.navigations.size;
      if (held > maxHeldProperties) {
        throw new MetadataLimitError(
          `the types hold more than the limit of ${figure(maxHeldProperties)} properties and navigation properties (an inherited one counted in each type that inherits it)`,
        );
      }
      types.set(name, structured);
      depths.set(name, depth);
      inherited = structured;
      depth += 1;
    }
  }

  const entitySets = new Map<string, EdmEntitySet>();
  for (const schema of schemas) {
    for (const container of list(schema.EntityContainer)) {
      for (const set of list(container.EntitySet)) {
        const name = text(set.Name);
        const type = text(set.EntityType);
        if (name !== undefined && type !== undefined) entitySets.set(name, { name, type: qualify(type) });
      }
    }
  }
  if (entitySets.size === 0 && types.size === 0) throw new MetadataFormatError('the document declares no entity sets or types');
  return { entitySets, types, enums };
}
