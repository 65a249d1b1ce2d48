/**
 * Candidate objects of a service, from its $metadata: each entity set with its entity type's key and
 * properties, typed from their Edm types (edm-types.ts). What does not map to a plain field is said
 * in notes above the object: properties read as Json (complex types, collections, enumerations,
 * times of day, durations, binary, geography), and each collection-valued navigation property,
 * which could be declared as a typed group.
 */
import type { DiscoveredObject } from '../connection.js';
import { discoveredType, edmClass, edmTypeText } from './edm-types.js';
import type { EdmStructuredType, ServiceModel } from './parse-metadata.js';

function typedGroupNote(model: ServiceModel, owner: EdmStructuredType, name: string, target: string): string {
  const entry = model.types.get(target);
  const typeField =
    entry === undefined ? undefined : [...entry.properties.values()].find((property) => /^(type|kind|category)$/i.test(property.name));
  const fields =
    entry === undefined ? [] : [...entry.properties.keys()].filter((field) => !entry.key.includes(field) || field === typeField?.name);
  return (
    `navigation '${name}' of ${owner.name} is a collection of ${target}: to read and write its entries with the records, declare ` +
    `groups: { ${name}: { navigation: ${name}, typeField: ${typeField?.name ?? '<property holding the entry type>'}, types: [...], ` +
    `fields: { ${fields.filter((field) => field !== typeField?.name).join(', ') || '...'} } } }`
  );
}

export function discoverObjects(model: ServiceModel): DiscoveredObject[] {
  const objects: DiscoveredObject[] = [];
  for (const set of model.entitySets.values()) {
    const type = model.types.get(set.type);
    if (type === undefined) continue;
    const notes: string[] = [];
    const fields = [...type.properties.values()].map((property) => {
      const fieldType = discoveredType(property.type, property.collection);
      if (fieldType === 'Json') {
        notes.push(
          `'${property.name}' is ${edmTypeText(property.type, property.collection)}: read as Json (filters and orders cannot use it)`,
        );
      } else if (edmClass(property.type) === 'guid') {
        notes.push(`'${property.name}' is an Edm.Guid: a String that filters compare for equality only`);
      }
      return { name: property.name, type: fieldType, nullable: property.nullable };
    });
    for (const navigation of type.navigations.values()) {
      if (navigation.collection) notes.push(typedGroupNote(model, type, navigation.name, navigation.type));
    }
    objects.push({
      name: set.name,
      options: { entitySet: set.name },
      key: [...type.key],
      fields,
      ...(notes.length > 0 ? { notes } : {}),
    });
  }
  return objects.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
