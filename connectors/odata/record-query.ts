/**
 * The query options of a read of one object: `$select` of the declared fields (and of the service's
 * key, which addresses an entity for a write), `$expand` of the navigation groups with the fields
 * of their entries, `$orderby` from the request's order with the key appended so that pages never
 * overlap, and `$filter` from the request's filter and id.
 *
 * Field paths of the filter and the order are checked against the declared fields
 * (records/object-model.ts): an undeclared one is refused before anything is sent. An order by a
 * field of a group entry has no OData counterpart (a collection cannot be sorted by); such a read
 * is sorted in memory (in-memory-read.ts), which holds every selected record.
 */
import type { OrderTerm } from '../../definitions/order/parse-order.js';
import type { PlaceholderValues, ReadRequest } from '../connection.js';
import { resolveFieldPath } from '../records/object-model.js';
import { compileFilter, type FilterScope } from './filter/compile-filter.js';
import { and, atom, TRUE, type Condition } from './filter/filter-condition.js';
import { ENTRY, unsupported, type FieldRef } from './filter/filter-operand.js';
import { literal } from './odata-literals.js';
import type { BoundObject } from './object-model.js';

/** The field references of an object's filters: its own fields, and group fields inside their entry. */
export function objectFilterScope(bound: BoundObject, placeholders?: PlaceholderValues): FilterScope {
  return {
    field(path: readonly string[]): FieldRef {
      const reference = resolveFieldPath(bound.object, path);
      const label = path.join('.');
      if (reference.kind === 'field') {
        const field = bound.fields.get(reference.field.name)!;
        return { path: field.field.name, nullPath: field.field.name, type: field.field.type, edm: field.edm, label };
      }
      const group = bound.groups.get(reference.group.name)!;
      const field = group.fields.get(reference.field.name)!;
      const entryPath = `${ENTRY}/${field.field.name}`;
      return {
        path: entryPath,
        nullPath: entryPath,
        type: field.field.type,
        edm: field.edm,
        label,
        entry: {
          member: group.member,
          typeTest: `${ENTRY}/${group.typeField.name} eq ${literal(group.typeField.edm, reference.type)}`,
          id: `${group.group.name}.${reference.type}`,
        },
      };
    },
    ...(placeholders === undefined ? {} : { placeholders }),
  };
}

/**
 * `$select` and `$expand` of a read: what a record of the object is decoded from. A write's lookup
 * (`withEntryKeys`) also asks for the keys of the group entries, which address them for an update.
 */
export function selectOptions(bound: BoundObject, withEntryKeys = false): { $select: string; $expand?: string } {
  const names = new Set<string>([...bound.serviceKey.map((part) => part.name), ...bound.fields.keys()]);
  const expand: string[] = [];
  for (const group of bound.groups.values()) {
    if (group.kind === 'complex') {
      names.add(group.member);
      continue;
    }
    const keys = withEntryKeys ? group.entryKey.map((part) => part.name) : [];
    const entry = new Set([group.typeField.name, ...group.fields.keys(), ...keys]);
    expand.push(`${group.member}($select=${[...entry].join(',')})`);
  }
  return { $select: [...names].join(','), ...(expand.length > 0 ? { $expand: expand.join(',') } : {}) };
}

/** The request's order, pushed down: `$orderby`, or undefined when it must be sorted in memory. */
export function orderBy(bound: BoundObject, order: readonly OrderTerm[] | undefined): string | undefined {
  const terms: string[] = [];
  const named = new Set<string>();
  for (const term of order ?? []) {
    const reference = resolveFieldPath(bound.object, term.field);
    if (reference.kind === 'group') return undefined;
    if (reference.field.type === 'Json') throw unsupported(`ordering by the Json field '${reference.field.name}'`);
    named.add(reference.field.name);
    terms.push(`${reference.field.name} ${term.direction}`);
  }
  // The service's key last: equal values keep one order from page to page.
  for (const part of bound.serviceKey) if (!named.has(part.name)) terms.push(`${part.name} asc`);
  return terms.join(',');
}

/** The key's order alone, for reads whose order is made in memory. */
export function keyOrder(bound: BoundObject): string {
  return bound.serviceKey.map((part) => `${part.name} asc`).join(',');
}

/** `k1 eq v1 and k2 eq v2` for an id already checked against the key's types. */
export function idCondition(bound: BoundObject, id: Readonly<Record<string, unknown>>): Condition {
  return and(bound.object.key.map((name) => atom(`${name} eq ${literal(bound.fields.get(name)!.edm, id[name])}`)));
}

/** The condition of a request's filter (TRUE without one). */
export function filterCondition(bound: BoundObject, request: Pick<ReadRequest, 'filter' | 'placeholders'>): Condition {
  if (request.filter === undefined) return TRUE;
  return compileFilter(request.filter, objectFilterScope(bound, request.placeholders));
}
