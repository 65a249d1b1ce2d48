/**
 * What the http connector checks of a System when definitions load, beyond its JSON Schemas, each
 * problem at the setting's path (so at its file, line and column):
 *
 * - every JSONata expression compiles: records, total.expression, paging.cursor, paging.next,
 *   get.record, create.key;
 * - path templates are well formed and name fields: the list's none (nothing fills them), get's
 *   the key's fields, all of them (it finds a record by its key), create's and update's fields of
 *   the object;
 * - filters name a field of the object or a group entry's field (`addresses.main.city`), not a
 *   Json one; text operators (contains, startswith, endswith, like) a String one; `value: regex`
 *   only with a text operator and `separator` only with `in`;
 * - sort.fields are fields of the object, and include the key (else no order can be sent);
 * - a group's JSON property is not also a field's;
 * - there are no named queries: an API takes no free statements;
 * - a writable object declares create or update (a warning: reading works without).
 */
import type { ConnectorProblem } from '../../definitions/connector-spec.js';
import { compileMapping } from '../../definitions/mapping/compile-mapping.js';
import { unknownFunctionCalls, unknownFunctionMessage } from '../../definitions/mapping/unknown-functions.js';
import type { ObjectDefinition, SystemDefinition } from '../../definitions/types.js';
import { parsePathTemplate, TemplateSyntaxError } from './path-template.js';

type Path = Array<string | number>;
type Raw = Record<string, unknown>;

const TEXT_OPERATORS = new Set(['contains', 'startswith', 'endswith', 'like']);

function checkJsonata(problems: ConnectorProblem[], path: Path, text: unknown): void {
  if (typeof text !== 'string') return;
  let expression: ReturnType<typeof compileMapping>;
  try {
    expression = compileMapping(text);
  } catch (error) {
    const message = (error as { message?: string }).message ?? String(error);
    problems.push({ path, code: 'jsonata-syntax', message: `${path.join('.')}: JSONata: ${message}` });
    return;
  }
  for (const call of unknownFunctionCalls(expression.ast())) {
    problems.push({ path, code: 'unknown-function', message: unknownFunctionMessage(path.join('.'), call) });
  }
}

function checkTemplate(
  problems: ConnectorProblem[],
  path: Path,
  operation: unknown,
  allowed: readonly string[],
  what: string,
  required: readonly string[] = [],
): void {
  const text = (operation as Raw | undefined)?.path;
  if (typeof text !== 'string') return;
  const at = [...path, 'path'];
  let fields: readonly string[];
  try {
    fields = parsePathTemplate(text).fields;
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
    problems.push({ path: at, code: 'invalid-template', message: `${at.join('.')}: ${error.message}` });
    return;
  }
  for (const field of fields) {
    if (!allowed.includes(field)) {
      const known = allowed.length === 0 ? 'this path takes no placeholders' : `it may name ${allowed.join(', ')}`;
      problems.push({ path: at, code: 'unknown-field', message: `${at.join('.')}: {${field}} is not ${what}; ${known}` });
    }
  }
  const missing = required.filter((name) => !fields.includes(name));
  if (missing.length > 0) {
    problems.push({
      path: at,
      code: 'invalid-template',
      message: `${at.join('.')}: names no {${missing.join('}, {')}}; a get finds one record by its whole key`,
    });
  }
}

function fieldTypeAt(object: ObjectDefinition, dotted: string): string | undefined {
  const [name, type, field] = dotted.split('.');
  if (type === undefined) return object.fields[name!]?.type;
  const group = object.groups?.[name!];
  return group?.types.includes(type) ? group.fields[field!]?.type : undefined;
}

function checkFilters(problems: ConnectorProblem[], path: Path, object: ObjectDefinition): void {
  ((object.filters ?? []) as Raw[]).forEach((filter, index) => {
    const at = [...path, 'filters', index];
    const field = String(filter.field);
    const op = String(filter.op);
    const type = fieldTypeAt(object, field);
    if (type === undefined) {
      problems.push({
        path: [...at, 'field'],
        code: 'unknown-field',
        message: `${[...at, 'field'].join('.')}: '${field}' is not a field of the object (or group.type.field of a group entry); its fields are ${Object.keys(object.fields).join(', ')}`,
      });
    } else if (type === 'Json') {
      problems.push({
        path: [...at, 'field'],
        code: 'unsupported',
        message: `${[...at, 'field'].join('.')}: '${field}' is a Json field, which no parameter can test`,
      });
    } else if (TEXT_OPERATORS.has(op) && type !== 'String') {
      problems.push({
        path: [...at, 'op'],
        code: 'unsupported',
        message: `${[...at, 'op'].join('.')}: ${op} tests text; '${field}' is of type ${type}`,
      });
    }
    if (filter.value === 'regex' && !TEXT_OPERATORS.has(op)) {
      problems.push({
        path: [...at, 'value'],
        code: 'unsupported',
        message: `${[...at, 'value'].join('.')}: regex goes with contains, startswith, endswith or like, not ${op}`,
      });
    }
    if (filter.separator !== undefined && op !== 'in') {
      problems.push({
        path: [...at, 'separator'],
        code: 'unsupported',
        message: `${[...at, 'separator'].join('.')}: a separator joins the values of in, not of ${op}`,
      });
    }
  });
}

function checkSort(problems: ConnectorProblem[], path: Path, object: ObjectDefinition): void {
  const sort = object.sort as Raw | undefined;
  if (sort === undefined) return;
  const fields = (sort.fields ?? []) as string[];
  fields.forEach((field, index) => {
    if (!Object.hasOwn(object.fields, field)) {
      problems.push({
        path: [...path, 'sort', 'fields', index],
        code: 'unknown-field',
        message: `${[...path, 'sort', 'fields'].join('.')}: '${field}' is not a field of the object; its fields are ${Object.keys(object.fields).join(', ')}`,
      });
    }
  });
  const missing = object.key.filter((name) => !fields.includes(name));
  if (missing.length > 0) {
    problems.push({
      path: [...path, 'sort', 'fields'],
      code: 'unusable-sort',
      message: `${[...path, 'sort', 'fields'].join('.')}: the key (${missing.join(', ')}) is not among them, so no order can be sent (the key breaks ties); add it, or every order is made in memory`,
      warning: true,
    });
  }
}

function checkObject(problems: ConnectorProblem[], system: SystemDefinition, name: string, object: ObjectDefinition): void {
  const path: Path = ['objects', name];
  const fields = Object.keys(object.fields);
  checkJsonata(problems, [...path, 'records'], object.records);
  checkJsonata(problems, [...path, 'total', 'expression'], (object.total as Raw | undefined)?.expression);
  checkJsonata(problems, [...path, 'paging', 'cursor'], (object.paging as Raw | undefined)?.cursor);
  checkJsonata(problems, [...path, 'paging', 'next'], (object.paging as Raw | undefined)?.next);
  checkJsonata(problems, [...path, 'get', 'record'], (object.get as Raw | undefined)?.record);
  checkJsonata(problems, [...path, 'create', 'key'], (object.create as Raw | undefined)?.key);
  checkTemplate(problems, [...path, 'list'], object.list, [], 'filled by anything: the list is read without a record');
  checkTemplate(problems, [...path, 'get'], object.get, object.key, 'a key field', object.key);
  checkTemplate(problems, [...path, 'create'], object.create, fields, 'a field of the object');
  checkTemplate(problems, [...path, 'update'], object.update, fields, 'a field of the object');
  checkFilters(problems, path, object);
  checkSort(problems, path, object);
  for (const [groupName, group] of Object.entries(object.groups ?? {})) {
    const property = typeof group.property === 'string' ? group.property : groupName;
    if (property !== groupName && Object.hasOwn(object.fields, property)) {
      problems.push({
        path: [...path, 'groups', groupName, 'property'],
        code: 'name-clash',
        message: `${[...path, 'groups', groupName, 'property'].join('.')}: '${property}' is also a field of the object; one JSON property cannot be both`,
      });
    }
  }
  const writable = !(system.readOnly ?? false) && !(object.readOnly ?? false);
  if (writable && object.create === undefined && object.update === undefined) {
    problems.push({
      path,
      code: 'no-write-operations',
      message: `objects.${name}: neither create nor update is declared, so every write is refused; add them (e.g. create: { path: … }), or readOnly: true`,
      warning: true,
    });
  }
}

export function checkHttpSystem(system: SystemDefinition): ConnectorProblem[] {
  const problems: ConnectorProblem[] = [];
  for (const name of Object.keys(system.queries ?? {})) {
    problems.push({
      path: ['queries', name],
      code: 'unsupported',
      message: `queries.${name}: the http connector runs no named queries (a REST API takes no free statements); read an object instead`,
    });
  }
  for (const [name, object] of Object.entries(system.objects ?? {})) checkObject(problems, system, name, object);
  return problems;
}
