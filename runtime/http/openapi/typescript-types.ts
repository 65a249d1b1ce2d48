/**
 * TypeScript types from our OpenAPI document, for the operator console's API client
 * (console/src/api/openapi-types.ts, written by `node bin/console-api-types.js`): one type per
 * component schema, and per operation its path and query parameters, its JSON request body and
 * its JSON answer of success. The console's types are then the API's own, never a copy kept in
 * step by hand.
 *
 * A small translation of the JSON Schema our document uses, not of all of JSON Schema: `type`
 * (one or a list), `properties` with `required`, `additionalProperties`, `items`, `enum`, `const`,
 * `$ref` to a component, `anyOf` and `oneOf`, OpenAPI 3.0's `nullable`, and the keywords that only
 * narrow values (`format`, `minimum`, `pattern`…), which a type cannot say and leaves out. Any other
 * keyword (`allOf`, `not`, `if`, `prefixItems`…) is an error naming its place: a type that silently
 * ignored it would be wrong, so the generator must learn it first.
 */
import { frozenMap, type Snapshot } from '../../../definitions/snapshot.js';
import { openApiFor } from './build-openapi.js';

type Schema = boolean | Record<string, unknown>;

/** Keywords that narrow values without changing their type; the types leave them out. */
const narrowing = new Set([
  'description',
  'title',
  'format',
  'default',
  'examples',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'readOnly',
  'writeOnly',
  'deprecated',
]);
/** Keywords this translation reads. */
const translated = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  '$ref',
  'anyOf',
  'oneOf',
  'nullable',
]);

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const componentRef = /^#\/components\/schemas\/(.+)$/;

/** `name` as a property key: bare when it is an identifier, else quoted. */
function key(name: string): string {
  return identifier.test(name) ? name : literal(name);
}

/** A doc comment of `text` at `indent`, or nothing without text. */
function comment(text: unknown, indent: string): string {
  if (typeof text !== 'string' || text.trim() === '') return '';
  const lines = text.replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

/** A value as a literal type: strings in single quotes, as the house style writes them. */
function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  return JSON.stringify(value);
}

/** Members of a union, each once, in their order. */
function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

/**
 * The TypeScript type of `schema`. `where` names its place in the document for errors
 * (`components.schemas.QueueItem.properties.Status`); `indent` is the indentation of the line the
 * type starts on.
 */
export function schemaType(schema: unknown, where = 'schema', indent = ''): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new Error(`${where}: not a schema`);
  const s = schema as Record<string, unknown>;
  for (const keyword of Object.keys(s)) {
    if (!narrowing.has(keyword) && !translated.has(keyword))
      throw new Error(`${where}: the keyword ${keyword} is not translated to TypeScript; teach runtime/http/openapi/typescript-types.ts`);
  }
  const nullable = s.nullable === true ? ' | null' : '';
  if (typeof s.$ref === 'string') {
    const name = componentRef.exec(s.$ref)?.[1];
    if (name === undefined || !identifier.test(name))
      throw new Error(`${where}: $ref ${s.$ref} is not a component schema with a plain name`);
    return `${name}${nullable}`;
  }
  if ('const' in s) return `${literal(s.const)}${nullable}`;
  if (Array.isArray(s.enum)) return union([...s.enum.map(literal), ...(nullable ? ['null'] : [])]);
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = s[keyword];
    if (Array.isArray(members)) {
      return union([...members.map((member, i) => schemaType(member, `${where}.${keyword}[${i}]`, indent)), ...(nullable ? ['null'] : [])]);
    }
  }
  const types = s.type === undefined ? undefined : Array.isArray(s.type) ? (s.type as unknown[]) : [s.type];
  if (types === undefined) return s.properties !== undefined ? `${objectType(s, where, indent)}${nullable}` : 'unknown';
  const each = types.map((type) => {
    switch (type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return `Array<${s.items === undefined ? 'unknown' : schemaType(s.items, `${where}.items`, indent)}>`;
      case 'object':
        return objectType(s, where, indent);
      default:
        throw new Error(`${where}: unknown type ${JSON.stringify(type)}`);
    }
  });
  return union([...each, ...(nullable ? ['null'] : [])]);
}

/** An object schema: its properties (optional unless required), or a record of any names. */
function objectType(s: Record<string, unknown>, where: string, indent: string): string {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const additional = s.additionalProperties;
  const names = Object.keys(properties);
  if (names.length === 0) {
    if (additional === false) return 'Record<string, never>';
    const values =
      additional === undefined || additional === true ? 'unknown' : schemaType(additional, `${where}.additionalProperties`, indent);
    return `Record<string, ${values}>`;
  }
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const inner = `${indent}  `;
  const lines = names.map((name) => {
    const property = properties[name]!;
    const described = typeof property === 'object' ? comment(property.description, inner) : '';
    const type = schemaType(property, `${where}.properties.${name}`, inner);
    return `${described}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${type};\n`;
  });
  // Other names may come too; what they hold is not described, so it is unknown.
  if (additional !== undefined && additional !== false) lines.push(`${inner}[name: string]: unknown;\n`);
  return `{\n${lines.join('')}${indent}}`;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/** The parameters of `place` (path, query) as an object type; `never` without any. */
function parametersType(operation: Operation, place: string, where: string): string {
  const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === place);
  if (parameters.length === 0) return 'never';
  return schemaType(
    {
      type: 'object',
      required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      properties: Object.fromEntries(
        parameters.map((parameter) => [
          parameter.name,
          typeof parameter.schema === 'object' && parameter.description !== undefined
            ? { ...parameter.schema, description: parameter.description }
            : (parameter.schema ?? true),
        ]),
      ),
      additionalProperties: false,
    },
    `${where}.parameters (${place})`,
    '    ',
  );
}

/** The JSON answer of the first success status (200, 201…); `never` when none is JSON (an event stream). */
function answerType(operation: Operation, where: string): string {
  const statuses = Object.keys(operation.responses ?? {})
    .filter((status) => /^2\d\d$/.test(status))
    .sort();
  for (const status of statuses) {
    const schema = operation.responses![status]!.content?.['application/json']?.schema;
    if (schema !== undefined) return schemaType(schema, `${where}.responses.${status}`, '    ');
  }
  return 'never';
}

function bodyType(operation: Operation, where: string): string {
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  if (schema === undefined) return 'never';
  const type = schemaType(schema, `${where}.requestBody`, '    ');
  return operation.requestBody?.required ? type : `${type} | undefined`;
}

/** The whole TypeScript module for `document`, headed by `header` (a doc comment). */
export function openApiTypeScript(document: Record<string, unknown>, header: string): string {
  const components = ((document.components as { schemas?: Record<string, Schema> } | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const out: string[] = [header];
  for (const [name, schema] of Object.entries(components)) {
    if (!identifier.test(name)) throw new Error(`components.schemas.${name}: not a plain name, which a type needs`);
    const described = typeof schema === 'object' ? comment(schema.description, '') : '';
    out.push(`\n${described}export type ${name} = ${schemaType(schema, `components.schemas.${name}`)};\n`);
  }
  const operations: string[] = [];
  const methods = ['get', 'put', 'post', 'delete', 'patch'];
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const method of methods) {
      const operation = item[method];
      if (operation?.operationId === undefined) continue;
      const where = `paths.${path}.${method}`;
      operations.push(
        `${comment(`${method.toUpperCase()} ${path}${operation.summary ? `: ${operation.summary}` : ''}`, '  ')}` +
          `  ${key(operation.operationId)}: {\n` +
          `    path: ${parametersType(operation, 'path', where)};\n` +
          `    query: ${parametersType(operation, 'query', where)};\n` +
          `    body: ${bodyType(operation, where)};\n` +
          `    answer: ${answerType(operation, where)};\n` +
          '  };\n',
      );
    }
  }
  out.push(
    '\n/** Every operation by its operationId: path and query parameters, JSON request body, JSON answer of success (`never`: none). */\n',
    `export interface Operations {\n${operations.join('')}}\n`,
  );
  return out.join('');
}

/**
 * The interface description of an instance without definitions: every route and component the
 * runtime always has, with plain strings where a served document lists the ids of what is loaded.
 */
export function openApiWithoutDefinitions(): Record<string, unknown> {
  const snapshot: Snapshot = {
    digest: '',
    loadedAt: new Date(0),
    files: [],
    systems: frozenMap([]),
    syncs: frozenMap([]),
    webhooks: frozenMap([]),
    flows: frozenMap([]),
    apiClients: frozenMap([]),
  };
  return openApiFor(snapshot, { version: '0.0.0', bodyLimit: 1 });
}

/** Where the console's API types live, relative to the project's root. */
export const consoleApiTypesPath = 'console/src/api/openapi-types.ts';

export const consoleApiTypesHeader = `/**
 * The API's types for the console, generated from the OpenAPI document the runtime publishes
 * (GET /api/openapi.json; runtime/http/openapi/) by \`node bin/console-api-types.js\`. Do not edit:
 * change the document and run the script again. test/unit/console/api-types.test.ts fails while
 * this file differs from what the script writes.
 */
`;

/** console/src/api/openapi-types.ts as it must read. */
export function consoleApiTypes(): string {
  return openApiTypeScript(openApiWithoutDefinitions(), consoleApiTypesHeader);
}
