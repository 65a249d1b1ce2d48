/**
 * Semantic checks of a System: keys name declared fields; query columns are unique; limits are
 * usable; and whatever its connector checks of its own (ConnectorSpec.checkSystem).
 */
import { isScalar } from 'yaml';
import { parseDuration } from '../duration.js';
import { locate } from '../load/source-document.js';
import { closest } from '../schema/did-you-mean.js';
import { parseSize } from '../size.js';
import { MAX_TIMEOUT_MS } from '../system-limits.js';
import type { ConnectorSpecs } from '../connector-spec.js';
import type { SystemDefinition } from '../types.js';
import type { CheckContext, Registered } from './check-context.js';
import { list } from './check-context.js';

export function checkSystem(context: CheckContext, { definition, source }: Registered<SystemDefinition>, connectors: ConnectorSpecs): void {
  checkLimits(context, source, definition);
  for (const problem of connectors.get(definition.connector)?.checkSystem?.(definition) ?? []) {
    if (problem.warning) context.warn(source, problem.path, problem.code, problem.message);
    else context.report(source, problem.path, problem.code, problem.message);
  }
  for (const [name, object] of Object.entries(definition.objects)) {
    object.key.forEach((field, index) => {
      if (!Object.hasOwn(object.fields, field)) {
        context.report(
          source,
          ['objects', name, 'key', index],
          'unknown-field',
          `objects.${name}.key: '${field}' is not one of the object's fields (${list(Object.keys(object.fields))})`,
        );
      }
    });
    for (const [groupName, group] of Object.entries(object.groups ?? {})) {
      if (Object.hasOwn(object.fields, groupName)) {
        context.report(
          source,
          ['objects', name, 'groups', groupName],
          'name-clash',
          `objects.${name}.groups.${groupName}: a field of the object has the same name; groups and fields share one namespace in records`,
          { key: true },
        );
      }
      void group;
    }
  }
  for (const [name, query] of Object.entries(definition.queries)) {
    const seen = new Set<string>();
    query.columns.forEach((column, index) => {
      if (seen.has(column.name)) {
        context.report(
          source,
          ['queries', name, 'columns', index, 'name'],
          'duplicate-column',
          `queries.${name}.columns: '${column.name}' is listed twice`,
        );
      }
      seen.add(column.name);
    });
    for (const key of ['statement', 'countStatement'] as const) {
      const text = query[key];
      if (text === undefined) continue;
      checkFlowFilterSpelling(context, source, ['queries', name, key], text);
      checkCutByComment(context, source, ['queries', name, key], text);
    }
  }
}

/**
 * `statement: SELECT … AND #FlowFilter#` unquoted: YAML reads ' #FlowFilter#' as a comment and the
 * statement ends in 'AND'. A same-line comment that starts like a placeholder is that mistake.
 */
function checkCutByComment(context: CheckContext, source: Registered<SystemDefinition>['source'], path: string[], text: string): void {
  const node = locate(source, path).node;
  if (!isScalar(node) || node.type !== 'PLAIN' || !/^[A-Za-z_][A-Za-z0-9_.]*#/.test(node.comment ?? '')) return;
  const tail = text.length > 30 ? `…${text.slice(-30)}` : text;
  context.report(
    source,
    path,
    'query-cut-by-comment',
    `${path.join('.')}: in YAML ' #' starts a comment, so the statement ends '${tail}' and '#${node.comment!.split('#')[0]}#' is lost; put the statement in quotes or write it as a block (>-)`,
  );
}

/**
 * Only #FlowFilter# is replaced in a query; a misspelt one would reach the database as-is and fail
 * on every call. (Other #…# text may be SQL: a PostgreSQL operator, a MariaDB comment, a literal.)
 */
function checkFlowFilterSpelling(
  context: CheckContext,
  source: Registered<SystemDefinition>['source'],
  path: string[],
  text: string,
): void {
  for (const match of text.matchAll(/#([A-Za-z_][A-Za-z0-9_]*)#/g)) {
    const name = match[1]!;
    if (name !== 'FlowFilter' && closest(name, ['FlowFilter']) !== undefined) {
      context.report(
        source,
        path,
        'query-placeholder',
        `${path.join('.')}: '#${name}#' is not replaced; the placeholder a query takes is #FlowFilter#`,
        { offsetInValue: match.index },
      );
    }
  }
}

/** What the schema's patterns let through but no database or timer can use: a zero or endless timeout, a zero size. */
function checkLimits(context: CheckContext, source: Registered<SystemDefinition>['source'], definition: SystemDefinition): void {
  const limits = definition.limits ?? {};
  for (const key of ['statementTimeout', 'queryWait'] as const) {
    const text = limits[key];
    const ms = text === undefined ? undefined : parseDuration(text);
    if (ms === undefined) continue;
    if (key === 'statementTimeout' && ms === 0) {
      context.report(
        source,
        ['limits', key],
        'invalid-limit',
        `limits.${key}: a statement timeout of 0 would stop every statement; give a duration such as 30s`,
      );
    } else if (ms > MAX_TIMEOUT_MS) {
      context.report(source, ['limits', key], 'invalid-limit', `limits.${key}: ${text} is longer than the longest timeout, 24d`);
    }
  }
  if (limits.queryBytes !== undefined && parseSize(limits.queryBytes) === undefined) {
    context.report(
      source,
      ['limits', 'queryBytes'],
      'invalid-limit',
      `limits.queryBytes: '${limits.queryBytes}' is not a size of at least one byte; write e.g. 32mib or 50mb`,
    );
  }
}
