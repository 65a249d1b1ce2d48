/**
 * Free queries (RunConnectionGetQueryData, named queries of syncs and webhooks): a statement is a
 * resource path below the service root with its query options, as it would follow the root in a
 * URL — `Customers?$select=id,name&$filter=#FlowFilter#&$orderby=name`.
 *
 * - Only GET is ever sent. A statement that names another method (`DELETE Customers(7)`) or the
 *   `$batch` resource is refused 'read-only'; one that leaves the service root (an absolute URL, a
 *   `..` segment, a leading `/`, or anything whose resolved path is not below the root: `\`, tabs
 *   and line breaks, which the URL parser reads as `/` or drops) is refused 'invalid-value'.
 *   `GET ` before the path is allowed.
 * - `#FlowFilter#` is replaced by the compiled filter in parentheses (no filter: `true`). The
 *   filter's fields are the properties of what the path reads — an entity set, or a navigation from
 *   one (`Customers(7)/addresses`) — typed from $metadata, so the filter means what it means on an
 *   object; a filter the service cannot say exactly (tolower, toupper, trim) is refused, since the
 *   rows cannot be checked again.
 * - Limit and skip become `$top` and `$skip` (a statement setting its own takes neither); the rows
 *   come page by page, following the service's next links — no further once Limit rows are in, a
 *   link that goes round in circles is 'unavailable', and all the pages together must come within
 *   limits.statementTimeout ('timeout') — and stop at limits.queryRows + 1 rows or
 *   limits.queryBytes of JSON, answered 'too-large'. At most limits.concurrentQueries run at once.
 * - Rows are the entities without their annotations, typed by the request's `columns` when given
 *   (found by name, then case-insensitively). The count statement is a `/$count` path (or one with
 *   `$count=true`, whose `@odata.count` is read).
 */
import type { SystemLimits } from '../../definitions/system-limits.js';
import type { FieldType } from '../../definitions/types.js';
import type { QueryRequest, QueryResult, RecordData } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { resultTooLargeError, statementTimeoutError } from '../limit-errors.js';
import type { QuerySlots } from '../query-slots.js';
import { decodeValue } from '../records/field-values.js';
import { wholeNumber } from '../records/read-window.js';
import type { QueryParameters, WebClient } from '../web/index.js';
import { discoveredType, edmClass } from './edm-types.js';
import { collectionOf, NextLinks } from './entity-pages.js';
import { compileFilter, type FilterScope } from './filter/compile-filter.js';
import { filterText, TRUE } from './filter/filter-condition.js';
import { unsupported, type FieldRef } from './filter/filter-operand.js';
import type { EdmStructuredType, ServiceModel } from './parse-metadata.js';
import { withoutAnnotations } from './write-payload.js';

export interface QueryScope {
  web: WebClient;
  systemId: string;
  limits: SystemLimits;
  slots: QuerySlots;
  model(): Promise<ServiceModel>;
}

const FLOW_FILTER = '#FlowFilter#';
const METHOD = /^(GET|POST|PUT|PATCH|MERGE|DELETE|HEAD|OPTIONS)\s+/i;

interface Statement {
  path: string;
  options: Array<[string, string]>;
}

function refused(scope: QueryScope, code: 'read-only' | 'invalid-value', role: string, why: string): ConnectorError {
  return new ConnectorError(code, `system '${scope.systemId}': the ${role} ${why}`, { details: { system: scope.systemId } });
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The statement's path and options, checked to stay a GET below the service root. */
function parseStatement(scope: QueryScope, text: string, role: string): Statement {
  let statement = text.trim();
  const method = METHOD.exec(statement);
  if (method !== null) {
    if (method[1]!.toUpperCase() !== 'GET') {
      throw refused(
        scope,
        'read-only',
        role,
        `names the method ${method[1]!.toUpperCase()}; a query only reads (a GET of a resource path)`,
      );
    }
    statement = statement.slice(method[0].length).trim();
  }
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(statement) || statement.startsWith('/')) {
    throw refused(
      scope,
      'invalid-value',
      role,
      'is a path below the service root (e.g. Customers?$filter=#FlowFilter#), not a URL or an absolute path',
    );
  }
  const question = statement.indexOf('?');
  const path = question < 0 ? statement : statement.slice(0, question);
  const segments = path.split('/').map(decode);
  if (segments.some((segment) => segment === '..' || segment === '.') || !scope.web.staysBelowBase(path))
    throw refused(scope, 'invalid-value', role, 'leaves the service root (a .. segment, or \\, a tab or a line break that reads as one)');
  if (segments.some((segment) => segment.toLowerCase() === '$batch')) {
    throw refused(scope, 'read-only', role, 'names $batch, which carries writes; a query reads one resource');
  }
  const query = question < 0 ? '' : statement.slice(question + 1);
  const options = query
    .split('&')
    .filter((part) => part !== '')
    .map((part): [string, string] => {
      const equals = part.indexOf('=');
      return equals < 0 ? [decode(part), ''] : [decode(part.slice(0, equals)), decode(part.slice(equals + 1))];
    });
  return { path, options };
}

/** The entity type a resource path reads: an entity set, optionally with a key and navigations. */
function resourceType(model: ServiceModel, path: string): EdmStructuredType | undefined {
  const segments = path.split('/').filter((segment) => segment !== '');
  const first = /^([^(]+)/.exec(segments[0] ?? '')?.[1];
  const set = first === undefined ? undefined : model.entitySets.get(decode(first));
  let type = set === undefined ? undefined : model.types.get(set.type);
  for (const segment of segments.slice(1)) {
    const name = /^([^(]+)/.exec(decode(segment))?.[1];
    const navigation = name === undefined ? undefined : type?.navigations.get(name);
    type = navigation === undefined ? undefined : model.types.get(navigation.type);
  }
  return type;
}

function queryFilterScope(type: EdmStructuredType | undefined, request: QueryRequest): FilterScope {
  return {
    field(path: readonly string[]): FieldRef {
      const label = path.join('.');
      const property = path.length === 1 ? type?.properties.get(path[0]!) : undefined;
      if (type === undefined)
        throw unsupported('a query filter on a statement that does not read an entity set', 'start the statement with an entity set');
      if (property === undefined) {
        throw new ConnectorError(
          'unknown-field',
          `a query filter names '${label}', which ${type.name} does not have; its properties are ${[...type.properties.keys()].join(', ')}`,
          {
            details: { field: label },
          },
        );
      }
      return {
        path: property.name,
        nullPath: property.name,
        type: discoveredType(property.type, property.collection),
        edm: edmClass(property.type, property.collection),
        label,
      };
    },
    ...(request.placeholders === undefined ? {} : { placeholders: request.placeholders }),
  };
}

/** The statement's options with `#FlowFilter#` replaced, as the web client's query parameters. */
function optionsOf(statement: Statement, filter: string, paging: Record<string, number>): QueryParameters {
  const options: Record<string, string[]> = {};
  for (const [name, value] of statement.options) (options[name] ??= []).push(value.replaceAll(FLOW_FILTER, filter));
  for (const [name, value] of Object.entries(paging)) options[name] = [String(value)];
  return options;
}

function rowMapper(columns: QueryRequest['columns']): (entity: Record<string, unknown>) => RecordData {
  if (columns === undefined || columns.length === 0) {
    return (entity) =>
      Object.fromEntries(Object.entries(withoutAnnotations(entity)).map(([name, raw]) => [name, decodeValue(undefined, raw)]));
  }
  return (entity) => {
    const row = withoutAnnotations(entity);
    const lowered = new Map(Object.keys(row).map((name) => [name.toLowerCase(), name]));
    const record: RecordData = {};
    for (const { name, type } of columns as ReadonlyArray<{ name: string; type: FieldType }>) {
      const source = Object.hasOwn(row, name) ? name : lowered.get(name.toLowerCase());
      if (source === undefined) {
        throw new ConnectorError(
          'invalid-value',
          `column '${name}' is not in the query result; the result has ${Object.keys(row).join(', ')}`,
          {
            details: { column: name },
          },
        );
      }
      record[name] = decodeValue(type, row[source]);
    }
    return record;
  };
}

export async function runQuery(scope: QueryScope, request: QueryRequest): Promise<QueryResult> {
  const { limits, web } = scope;
  const { signal } = request;
  const limit = wholeNumber('limit', request.limit, 0);
  const skip = wholeNumber('skip', request.skip, 0);
  const statement = parseStatement(scope, request.statement, 'statement');
  const count = request.countStatement === undefined ? undefined : parseStatement(scope, request.countStatement, 'count statement');
  const setsPaging = statement.options.some(([name]) => name === '$top' || name === '$skip');
  if (setsPaging && (limit !== undefined || skip !== undefined)) {
    throw refused(scope, 'invalid-value', 'statement', 'sets $top or $skip itself; give Limit and Skip or $top and $skip, not both');
  }
  const usesFilter = [statement, ...(count ? [count] : [])].some((parsed) =>
    parsed.options.some(([, value]) => value.includes(FLOW_FILTER)),
  );
  let filter = 'true';
  if (request.filter !== undefined && usesFilter) {
    const model = await scope.model();
    const condition = compileFilter(request.filter, queryFilterScope(resourceType(model, statement.path), request));
    if (!condition.exact)
      throw unsupported(
        'tolower, toupper or trim, or a String field as a condition, in a query filter',
        'the rows of a query cannot be checked again',
      );
    filter = condition === TRUE ? 'true' : `(${filterText(condition)})`;
  }
  const paging = { ...(limit === undefined ? {} : { $top: limit }), ...(skip === undefined || skip === 0 ? {} : { $skip: skip }) };
  const toRecord = rowMapper(request.columns);
  signal?.throwIfAborted();
  const release = await scope.slots.acquire(signal);
  try {
    const rows: RecordData[] = [];
    let bytes = 0;
    let next: string | undefined = statement.path;
    let query: QueryParameters | undefined = optionsOf(statement, filter, paging);
    const links = new NextLinks(web);
    // Every request has the statement timeout; the pages of one query together have it too.
    const deadline = performance.now() + limits.statementTimeoutMs;
    while (next !== undefined) {
      if (performance.now() > deadline) throw statementTimeoutError(scope.systemId, 'reading the pages of a query', limits);
      const response = await web.request({
        path: next,
        ...(query ? { query } : {}),
        headers: { prefer: 'odata.maxpagesize=1000' },
        ...(signal ? { signal } : {}),
      });
      if (!response.ok) throw response.failure();
      const body = response.json();
      const page = Array.isArray((body as { value?: unknown } | null)?.value)
        ? collectionOf(web, response)
        : { entities: [body as Record<string, unknown>], next: undefined };
      for (const entity of page.entities) {
        // A service that sends more than $top asked for (a next link past it) gives no more rows.
        if (rows.length === limit) break;
        if (rows.length === limits.queryRows) throw resultTooLargeError(scope.systemId, 'rows', limits);
        const record = toRecord(entity);
        bytes += Buffer.byteLength(JSON.stringify(record)) + 1;
        if (bytes > limits.queryBytes) throw resultTooLargeError(scope.systemId, 'bytes', limits);
        rows.push(record);
      }
      next = rows.length === limit ? undefined : page.next;
      if (next !== undefined) links.check(next, page.entities.length);
      query = undefined;
    }
    const result: QueryResult = { rows };
    if (count !== undefined) result.total = await countOf(scope, count, filter, signal);
    return result;
  } finally {
    release();
  }
}

async function countOf(scope: QueryScope, statement: Statement, filter: string, signal: AbortSignal | undefined): Promise<number> {
  const response = await scope.web.request({
    path: statement.path,
    query: optionsOf(statement, filter, {}),
    accept: 'text/plain, application/json',
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw response.failure();
  const text = response.text().trim();
  // A /$count answers the number as text; a collection with $count=true carries it as @odata.count.
  const given = /^\d+$/.test(text) ? text : (response.json() as Record<string, unknown> | null)?.['@odata.count'];
  const total = typeof given === 'number' || (typeof given === 'string' && /^\d+$/.test(given)) ? Number(given) : Number.NaN;
  if (Number.isSafeInteger(total) && total >= 0) return total;
  throw new ConnectorError('unavailable', `system '${scope.systemId}' answered the count statement with something that is not a count`, {
    details: { system: scope.systemId },
  });
}
