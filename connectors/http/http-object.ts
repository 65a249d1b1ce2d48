/**
 * A System's objects as the http connector uses them: the shared record model
 * (records/object-model.ts: key, typed fields, typed groups), plus each object's operations with
 * their path templates, its JSONata expressions compiled, its paging, filter parameters and sort —
 * and for each typed group the JSON property holding its entries by type. The definition was
 * validated (and every expression compiled once by checkSystem), so nothing here can fail.
 */
import type { Expression as Jsonata } from 'jsonata';
import { compileMapping } from '../../definitions/mapping/compile-mapping.js';
import type { ObjectDefinition, SystemDefinition } from '../../definitions/types.js';
import { buildObjects as buildRecordObjects, type RecordGroup, type RecordObject } from '../records/object-model.js';
import type { FilterMapping } from './filter-mapping.js';
import { parsePathTemplate, type PathTemplate } from './path-template.js';

export { objectNamed, objectOrError } from '../records/object-model.js';

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: PathTemplate;
  query: Readonly<Record<string, string | number | boolean>>;
}

export type Paging =
  | { style: 'offset'; pageSize: number; offsetParam: string; limitParam: string }
  | { style: 'page'; pageSize: number; pageParam: string; sizeParam: string; firstPage: number }
  | { style: 'cursor'; pageSize: number; cursor: Jsonata; cursorParam: string; sizeParam: string }
  | { style: 'link'; pageSize: number; sizeParam: string | undefined; next: Jsonata | undefined }
  | { style: 'none'; pageSize: number };

export interface SortMapping {
  param: string;
  fields: ReadonlySet<string>;
  directionParam: string | undefined;
  descendingPrefix: string | undefined;
  ascending: string;
  descending: string;
  separator: string;
}

export type TotalSource = { header: string } | { expression: Jsonata } | undefined;

export interface HttpGroup extends RecordGroup {
  /** The record's JSON property holding the entries by type. */
  property: string;
}

export interface HttpObject extends RecordObject<HttpGroup> {
  list: Operation;
  get: (Operation & { record: Jsonata | undefined }) | undefined;
  create: (Operation & { key: Jsonata | undefined }) | undefined;
  update: Operation | undefined;
  records: Jsonata | undefined;
  total: TotalSource;
  paging: Paging;
  filters: readonly FilterMapping[];
  sort: SortMapping | undefined;
  /** The options as written, which discover gives back. */
  options: Record<string, unknown>;
}

/** The connector's own options of an object definition (everything but key, fields, groups…). */
export const objectOptionNames = ['list', 'get', 'create', 'update', 'records', 'total', 'paging', 'filters', 'sort'] as const;

type Raw = Record<string, unknown>;

const compiled = (text: unknown): Jsonata | undefined => (typeof text === 'string' ? compileMapping(text) : undefined);

function operation(raw: unknown, method: Operation['method']): Operation | undefined {
  if (raw === undefined) return undefined;
  const given = raw as Raw;
  return {
    method: (given.method as Operation['method'] | undefined) ?? method,
    path: parsePathTemplate(String(given.path)),
    query: { ...(given.query as Record<string, string | number | boolean> | undefined) },
  };
}

function pagingOf(raw: unknown): Paging {
  const given = (raw ?? { style: 'none' }) as Raw;
  const pageSize = typeof given.pageSize === 'number' ? given.pageSize : 100;
  const text = (name: string, fallback: string) => (typeof given[name] === 'string' ? (given[name] as string) : fallback);
  switch (given.style) {
    case 'offset':
      return { style: 'offset', pageSize, offsetParam: text('offsetParam', 'offset'), limitParam: text('limitParam', 'limit') };
    case 'page':
      return {
        style: 'page',
        pageSize,
        pageParam: text('pageParam', 'page'),
        sizeParam: text('sizeParam', 'size'),
        firstPage: typeof given.firstPage === 'number' ? given.firstPage : 1,
      };
    case 'cursor':
      return {
        style: 'cursor',
        pageSize,
        cursor: compiled(given.cursor)!,
        cursorParam: text('cursorParam', 'cursor'),
        sizeParam: text('sizeParam', 'limit'),
      };
    case 'link':
      return { style: 'link', pageSize, sizeParam: given.sizeParam as string | undefined, next: compiled(given.next) };
    default:
      return { style: 'none', pageSize };
  }
}

function sortOf(raw: unknown): SortMapping | undefined {
  if (raw === undefined) return undefined;
  const given = raw as Raw;
  return {
    param: String(given.param),
    fields: new Set(given.fields as string[]),
    directionParam: given.directionParam as string | undefined,
    descendingPrefix: given.descendingPrefix as string | undefined,
    ascending: (given.ascending as string | undefined) ?? 'asc',
    descending: (given.descending as string | undefined) ?? 'desc',
    separator: (given.separator as string | undefined) ?? ',',
  };
}

function totalOf(raw: unknown): TotalSource {
  const given = raw as Raw | undefined;
  if (typeof given?.header === 'string') return { header: given.header };
  if (typeof given?.expression === 'string') return { expression: compileMapping(given.expression) };
  return undefined;
}

function filtersOf(raw: unknown): FilterMapping[] {
  return ((raw ?? []) as Raw[]).map((given) => ({
    field: String(given.field),
    path: String(given.field).split('.'),
    op: given.op as FilterMapping['op'],
    param: String(given.param),
    value: given.value === 'regex' ? 'regex' : 'text',
    ...(typeof given.separator === 'string' ? { separator: given.separator } : {}),
  }));
}

/** The connector options of an object definition as written. */
export function objectOptions(definition: ObjectDefinition): Record<string, unknown> {
  return Object.fromEntries(objectOptionNames.filter((name) => definition[name] !== undefined).map((name) => [name, definition[name]]));
}

export function buildObjects(system: SystemDefinition): ReadonlyMap<string, HttpObject> {
  return buildRecordObjects(system, {
    object: (definition) => {
      const get = operation(definition.get, 'GET');
      const create = operation(definition.create, 'POST');
      return {
        list: operation(definition.list, 'GET')!,
        get: get && { ...get, method: 'GET' as const, record: compiled((definition.get as Raw).record) },
        create: create && { ...create, key: compiled((definition.create as Raw).key) },
        update: operation(definition.update, 'PATCH'),
        records: compiled(definition.records),
        total: totalOf(definition.total),
        paging: pagingOf(definition.paging),
        filters: filtersOf(definition.filters),
        sort: sortOf(definition.sort),
        options: objectOptions(definition),
      };
    },
    group: (definition, name) => ({ property: typeof definition.property === 'string' ? definition.property : name }),
  });
}
