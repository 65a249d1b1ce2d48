/**
 * What a mapping's keys tell before anything runs, when they can be read off its text (an object
 * constructor with literal keys, definitions/mapping/mapping-keys.ts; otherwise nothing is said):
 *
 * - a key the target object has neither as a field nor as a group fails every record at the write;
 * - a placeholder of a match search (`#Email#`, a field of the mapped record) that the mapping does
 *   not produce reads null for every record, so the search never finds the record to update.
 */
import type { Expression as Mapping } from 'jsonata';
import { collectPlaceholders, type Expression } from '../expression/index.js';
import { mappingKeys, type MappingKey } from '../mapping/mapping-keys.js';
import type { PathSegment, SourceDocument } from '../load/source-document.js';
import { closest } from '../schema/did-you-mean.js';
import type { ObjectDefinition } from '../types.js';
import { list, type CheckContext } from './check-context.js';

/** The mapping's literal keys, or undefined when its result's keys depend on the data. */
export function keysOf(mapping: Mapping | undefined, text: string): MappingKey[] | undefined {
  return mapping === undefined ? undefined : mappingKeys(mapping, text);
}

/** Reports every key of the mapping at `path` that `object` (named `label`) does not have. */
export function checkMappingTarget(
  context: CheckContext,
  source: SourceDocument,
  path: readonly PathSegment[],
  keys: readonly MappingKey[],
  label: string,
  object: ObjectDefinition,
): void {
  const names = [...Object.keys(object.fields), ...Object.keys(object.groups ?? {})];
  // An object that declares no fields takes whatever it is given.
  if (Object.keys(object.fields).length === 0) return;
  for (const key of keys) {
    if (names.includes(key.name)) continue;
    const guess = closest(key.name, names);
    const hint = guess ? `; did you mean '${guess}'?` : ` (it has: ${list(names)})`;
    context.report(
      source,
      path,
      'unknown-target-field',
      `${path.join('.')}: '${key.name}' is not a field of ${label}, so writing any record would fail${hint}`,
      { offsetInValue: key.start },
    );
  }
}

/** Reports placeholders of a match search (not `#params.Name#`) that name no key of the mapping. */
export function checkMatchPlaceholders(
  context: CheckContext,
  source: SourceDocument,
  path: readonly PathSegment[],
  where: Expression,
  keys: readonly MappingKey[],
): void {
  const produced = keys.map((key) => key.name);
  for (const placeholder of collectPlaceholders(where)) {
    const name = placeholder.path[0]!;
    if (name === 'params' || produced.includes(name)) continue;
    const guess = closest(name, produced);
    const makes = produced.length === 0 ? 'it produces no field' : `it produces ${list(produced)}`;
    context.report(
      source,
      path,
      'unmapped-placeholder',
      `${path.join('.')}: #${placeholder.path.join('.')}# names '${name}', which the mapping does not produce (${makes}), so the search would compare with null for every record${guess ? `; did you mean #${guess}#?` : ''}`,
      { offsetInValue: placeholder.start },
    );
  }
}
