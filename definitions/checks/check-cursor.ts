/**
 * Checks of a Sync's `source.cursor` (incremental runs): the field is one the source declares, of a
 * type whose values only grow — DateTime or Date (a change timestamp) or Integer (an ever-growing
 * key or version) — and lookBack, a duration, is given for timestamps only. A record-store source
 * has no declared fields and is emptied as it is read, so it has no cursor; a query source needs
 * #FlowFilter#, where the cursor's condition goes. Whether the source's connector can push the
 * condition down is checked with the other capabilities (check-capabilities.ts).
 */
import { parseDuration } from '../duration.js';
import type { PathSegment, SourceDocument } from '../load/source-document.js';
import type { SyncCursor } from '../snapshot.js';
import type { FieldType, SyncDefinition, SystemDefinition } from '../types.js';
import type { CheckContext, FieldShape } from './check-context.js';

/** Field types a cursor may read: values that grow as records change or are added. */
const cursorTypes: readonly string[] = Object.freeze(['DateTime', 'Date', 'Integer']);

function isCursorType(type: FieldType): type is SyncCursor['type'] {
  return cursorTypes.includes(type);
}

export function checkCursor(
  context: CheckContext,
  source: SourceDocument,
  definition: SyncDefinition,
  sourceShape: { owner: string; shape: FieldShape } | undefined,
  system: SystemDefinition | undefined,
): SyncCursor | undefined {
  const cursor = definition.source.cursor;
  if (cursor === undefined) return undefined;
  const path: PathSegment[] = ['source', 'cursor'];
  if (definition.source.recordStore) {
    context.report(
      source,
      path,
      'cursor-source',
      'source.cursor: a record-store source has no cursor (its records are deleted once synced, so every run reads only new ones); remove cursor',
      { key: true },
    );
    return undefined;
  }
  if (sourceShape === undefined) return undefined;
  const before = context.errors;
  context.fields(source, [...path, 'field'], [{ path: cursor.field.split('.'), start: 0 }], sourceShape.owner, sourceShape.shape);
  if (context.errors > before) return undefined;
  const declared = Object.hasOwn(sourceShape.shape.fields, cursor.field) ? sourceShape.shape.fields[cursor.field] : undefined;
  const type = declared?.type as FieldType | undefined;
  if (type === undefined || !isCursorType(type)) {
    context.report(
      source,
      [...path, 'field'],
      'cursor-type',
      `source.cursor.field: '${cursor.field}' of ${sourceShape.owner} is ${type ?? 'a group entry'}; a cursor needs a field whose values grow — a change timestamp (DateTime or Date) or an ever-growing key (Integer)`,
    );
    return undefined;
  }
  let lookBackMs = 0;
  if (cursor.lookBack !== undefined) {
    if (type === 'Integer') {
      context.report(
        source,
        [...path, 'lookBack'],
        'cursor-look-back',
        `source.cursor.lookBack: '${cursor.field}' is an Integer key, and lookBack is a duration for timestamps only; remove lookBack`,
      );
      return undefined;
    }
    lookBackMs = parseDuration(cursor.lookBack) ?? 0;
  }
  const query = definition.source.query === undefined ? undefined : system?.queries[definition.source.query];
  if (query !== undefined && !query.statement.includes('#FlowFilter#')) {
    context.report(
      source,
      [...path],
      'cursor-query-filter',
      `source.cursor: query ${system!.id}/${definition.source.query} has no #FlowFilter#, where the cursor's condition would go; add #FlowFilter# to its statement (e.g. WHERE #FlowFilter#) or remove cursor`,
      { key: true },
    );
    return undefined;
  }
  return { field: cursor.field, type, lookBackMs };
}
