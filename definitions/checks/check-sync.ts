/**
 * Semantic checks of a Sync: what it reads and writes exists, its filter, order and conditions
 * parse and name real fields, its mapping compiles and writes fields the target has (check-mapping.ts),
 * its match search reads fields the mapping produces, its schedule is a real schedule.
 */
import { collectFields, collectPlaceholders } from '../expression/index.js';
import type { SyncEntry } from '../snapshot.js';
import type { FieldShape } from './check-context.js';
import { sourceFieldReads } from '../mapping/source-fields.js';
import type { SyncDefinition } from '../types.js';
import { objectShape, type CheckContext, type Registered } from './check-context.js';
import { checkMappingTarget, checkMatchPlaceholders, keysOf } from './check-mapping.js';
import { checkCursor } from './check-cursor.js';
import { checkSchedule } from './check-schedule.js';

export type CompiledSync = Omit<SyncEntry, 'definition' | 'origin'>;

export function checkSync(context: CheckContext, entry: Registered<SyncDefinition>): CompiledSync | undefined {
  const { definition, source } = entry;
  const before = context.errors;
  const sourceShape = checkSource(context, entry);

  const target = context.resolve('System', definition.target.system, source, ['target', 'system']);
  const targetObject = target && context.object(target, definition.target.object, source, ['target', 'object']);
  if (target?.definition.readOnly || targetObject?.readOnly) {
    context.report(
      source,
      ['target'],
      'read-only-target',
      `target: ${target!.definition.id}/${definition.target.object} is read-only; a sync cannot write to it`,
    );
  }

  const where =
    definition.source.where === undefined ? undefined : context.expression(source, ['source', 'where'], definition.source.where);
  if (where && sourceShape) context.fields(source, ['source', 'where'], collectFields(where), sourceShape.owner, sourceShape.shape);
  const order = definition.source.order === undefined ? undefined : context.order(source, ['source', 'order'], definition.source.order);
  if (order && sourceShape)
    context.fields(
      source,
      ['source', 'order'],
      order.map((t) => ({ path: t.field, start: t.start })),
      sourceShape.owner,
      sourceShape.shape,
    );

  const precondition =
    definition.precondition === undefined ? undefined : context.expression(source, ['precondition'], definition.precondition);
  if (precondition && sourceShape) {
    // #field# is the source record's field; #params.Name# an action parameter.
    const placeholders = collectPlaceholders(precondition).filter((p) => p.path[0] !== 'params');
    context.fields(source, ['precondition'], [...placeholders, ...collectFields(precondition)], sourceShape.owner, sourceShape.shape);
  }

  const mapping = context.mapping(source, ['mapping'], definition.mapping);
  if (mapping && sourceShape && Object.keys(sourceShape.shape.fields).length > 0) {
    // A warning: a connector may hand over more than the fields an object declares. A declared
    // field's members (a Json field's) are the data's, not the definition's: only its name is checked.
    const { fields } = sourceShape.shape;
    const reads = sourceFieldReads(mapping.ast(), definition.mapping).map((read) =>
      Object.hasOwn(fields, read.path[0]!) ? { ...read, path: read.path.slice(0, 1) } : read,
    );
    context.fields(source, ['mapping'], reads, sourceShape.owner, sourceShape.shape, 'warning');
  }

  const matchWhere = definition.match ? context.expression(source, ['match', 'where'], definition.match.where) : undefined;
  if (matchWhere && targetObject) {
    context.fields(
      source,
      ['match', 'where'],
      collectFields(matchWhere),
      `target ${definition.target.system}/${definition.target.object}`,
      objectShape(targetObject),
    );
  }
  if (matchWhere && collectFields(matchWhere).length === 0) {
    context.report(
      source,
      ['match', 'where'],
      'match-without-field',
      'match.where must compare at least one target field, e.g. Email = #Email#',
    );
  }
  const keys = keysOf(mapping, definition.mapping);
  // A sync that webhooks only read through, and that nothing schedules, maps for their answers:
  // its records are shown, not written, so its keys need not be fields of the target.
  const types = definition.webhookTypes;
  const readView = types.some((type) => type !== 'write') && !types.includes('write') && definition.schedule === undefined;
  if (keys && targetObject && !readView)
    checkMappingTarget(context, source, ['mapping'], keys, `target ${definition.target.system}/${definition.target.object}`, targetObject);
  if (keys && matchWhere) checkMatchPlaceholders(context, source, ['match', 'where'], matchWhere, keys);

  if (definition.schedule) checkSchedule(context, source, ['schedule'], definition.schedule);

  const sourceSystem = context.usable('System', definition.source.system);
  const cursor = checkCursor(context, source, definition, sourceShape, sourceSystem?.definition);

  if (context.errors > before || !mapping) return undefined;
  return { where, order, precondition, matchWhere, mapping, ...(cursor === undefined ? {} : { cursor }) };
}

/** The source's field shape, for checking filters and preconditions against it. */
function checkSource(
  context: CheckContext,
  { definition, source }: Registered<SyncDefinition>,
): { owner: string; shape: FieldShape } | undefined {
  const s = definition.source;
  if (s.recordStore) {
    for (const key of ['system', 'object', 'query'] as const) {
      if (s[key] !== undefined)
        context.report(
          source,
          ['source', key],
          'source-conflict',
          `source.${key}: a record-store source reads this sync's record store; remove ${key}`,
          { key: true },
        );
    }
    return undefined;
  }
  if (s.system === undefined) {
    context.report(source, ['source'], 'source-incomplete', 'source: give system with object (or query), or recordStore: true', {
      key: true,
    });
    return undefined;
  }
  if ((s.object === undefined) === (s.query === undefined)) {
    context.report(source, ['source'], 'source-incomplete', `source: give exactly one of object and query for system '${s.system}'`, {
      key: true,
    });
    return undefined;
  }
  const system = context.resolve('System', s.system, source, ['source', 'system']);
  if (!system) return undefined;
  if (s.object !== undefined) {
    const object = context.object(system, s.object, source, ['source', 'object']);
    return object && { owner: `source ${s.system}/${s.object}`, shape: objectShape(object) };
  }
  const queries = system.definition.queries;
  const query = Object.hasOwn(queries, s.query!) ? queries[s.query!] : undefined;
  if (!query) {
    const known = Object.keys(queries);
    context.report(
      source,
      ['source', 'query'],
      'unknown-reference',
      `source.query: System '${s.system}' has no query '${s.query}'${known.length ? ` (it has: ${known.join(', ')})` : ' (it declares no queries)'}`,
    );
    return undefined;
  }
  return {
    owner: `query ${s.system}/${s.query}`,
    shape: { fields: Object.fromEntries(query.columns.map((c) => [c.name, { type: c.type }])) },
  };
}
