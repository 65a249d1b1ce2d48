/**
 * The console's API types are generated from the OpenAPI document (runtime/http/openapi/
 * typescript-types.ts, written by `node bin/console-api-types.js`): this test fails while
 * console/src/api/openapi-types.ts differs from what the document makes, checks the translation
 * of each JSON Schema construct the document uses, and keeps the console from declaring a type of
 * its own under the name of one the API describes.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import {
  consoleApiTypes,
  consoleApiTypesPath,
  openApiTypeScript,
  openApiWithoutDefinitions,
  schemaType,
} from '../../../runtime/http/openapi/typescript-types.js';
import { repoRoot } from '../../support/doc-examples.js';

test(`${consoleApiTypesPath} is what the OpenAPI document makes`, () => {
  const written = readFileSync(join(repoRoot, consoleApiTypesPath), 'utf8');
  assert.ok(written === consoleApiTypes(), `${consoleApiTypesPath} is stale: run \`node bin/console-api-types.js\``);
});

test('objects: required and optional properties, quoted names, descriptions, records and open objects', () => {
  assert.equal(
    schemaType({
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string', description: 'The id.' }, 'content-type': { type: 'integer', minimum: 0 } },
      additionalProperties: false,
    }),
    "{\n  /** The id. */\n  id: string;\n  'content-type'?: number;\n}",
  );
  assert.equal(schemaType({ type: 'object', additionalProperties: { type: 'string' } }), 'Record<string, string>');
  assert.equal(schemaType({ type: 'object' }), 'Record<string, unknown>');
  assert.equal(
    schemaType({ type: 'object', properties: { a: { type: 'boolean' } } }),
    '{\n  a?: boolean;\n}',
    'no additionalProperties: open',
  );
  assert.equal(
    schemaType({ type: 'object', properties: { a: { type: 'boolean' } }, additionalProperties: { type: 'string' } }),
    '{\n  a?: boolean;\n  [name: string]: unknown;\n}',
  );
  assert.equal(
    schemaType(
      { type: 'object', properties: { inner: { type: 'object', required: ['x'], properties: { x: { type: 'number' } } } } },
      'x',
      '  ',
    ),
    '{\n    inner?: {\n      x: number;\n    };\n  }',
    'nested objects indent',
  );
});

test('arrays, enums, consts, refs, nullable, anyOf and oneOf', () => {
  assert.equal(schemaType({ type: 'array', items: { $ref: '#/components/schemas/QueueItem' } }), 'Array<QueueItem>');
  assert.equal(schemaType({ type: 'array' }), 'Array<unknown>');
  assert.equal(schemaType({ enum: ['a', "it's", null] }), "'a' | 'it\\'s' | null");
  assert.equal(schemaType({ const: 'ready' }), "'ready'");
  assert.equal(schemaType({ const: 3 }), '3');
  assert.equal(schemaType({ type: ['string', 'null'], format: 'date-time' }), 'string | null');
  assert.equal(
    schemaType({ type: ['object', 'null'], required: ['a'], properties: { a: { type: 'integer' } } }),
    '{\n  a: number;\n} | null',
  );
  assert.equal(schemaType({ type: 'string', nullable: true }), 'string | null', "OpenAPI 3.0's nullable");
  assert.equal(schemaType({ enum: ['x'], nullable: true }), "'x' | null");
  assert.equal(schemaType({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }), 'string | Array<string>');
  assert.equal(schemaType({ oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/Item' }] }), 'null | Item');
  assert.equal(schemaType({ anyOf: [{ type: 'string' }, {}] }), 'unknown', 'anything absorbs the union');
  assert.equal(schemaType({}), 'unknown');
  assert.equal(schemaType(true), 'unknown');
  assert.equal(schemaType(false), 'never');
  assert.equal(schemaType({ type: ['integer', 'number'] }), 'number');
});

test('a keyword it cannot translate, a ref outside the components and an unknown type are errors naming the place', () => {
  assert.throws(() => schemaType({ type: 'object', properties: { a: { allOf: [] } } }, 'components.schemas.X'), {
    message: /^components\.schemas\.X\.properties\.a: the keyword allOf is not translated to TypeScript/,
  });
  assert.throws(() => schemaType({ $ref: '#/components/responses/Problem' }, 'here'), {
    message: /^here: \$ref #\/components\/responses\/Problem/,
  });
  assert.throws(() => schemaType({ type: 'date' }, 'here'), { message: /^here: unknown type "date"/ });
  assert.throws(() => openApiTypeScript({ components: { schemas: { 'Record.crm.Customer': {} } } }, ''), { message: /not a plain name/ });
});

test('operations: path and query parameters, the JSON body, the answer of the first success status, never where there is none', () => {
  const text = openApiTypeScript(
    {
      paths: {
        '/api/things/{id}': {
          post: {
            operationId: 'makeThing',
            summary: 'Makes one.',
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
              { name: 'mode', in: 'query', schema: { enum: ['a', 'b'] }, description: 'How.' },
            ],
            requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
            responses: {
              201: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
              400: { content: { 'application/problem+json': { schema: { type: 'object' } } } },
            },
          },
          get: { operationId: 'followThing', responses: { 200: { content: { 'text/event-stream': { schema: { type: 'string' } } } } } },
        },
      },
    },
    '',
  );
  assert.match(text, /\/\*\* POST \/api\/things\/\{id\}: Makes one\. \*\/\n {2}makeThing: \{\n {4}path: \{\n {6}id: string;\n {4}\};/);
  assert.match(text, /query: \{\n {6}\/\*\* How\. \*\/\n {6}mode\?: 'a' \| 'b';\n {4}\};\n {4}body: Thing;\n {4}answer: Thing;/);
  assert.match(text, /followThing: \{\n {4}path: never;\n {4}query: never;\n {4}body: never;\n {4}answer: never;/);
});

test('every component and operation of the served document is translated', () => {
  const document = openApiWithoutDefinitions() as { components: { schemas: Record<string, unknown> }; paths: Record<string, object> };
  const text = consoleApiTypes();
  for (const name of Object.keys(document.components.schemas)) assert.match(text, new RegExp(`^export type ${name} = `, 'm'), name);
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Array<{ operationId: string }>)
      assert.match(text, new RegExp(`^ {2}${operation.operationId}: \\{$`, 'm'), operation.operationId);
  }
});

test('no console source declares a type under the name of one the API describes: it uses the generated one', () => {
  const generated = join(repoRoot, consoleApiTypesPath);
  const described = new Set(Object.keys((openApiWithoutDefinitions() as { components: { schemas: object } }).components.schemas));
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [join(dir, entry.name)] : [],
    );
  const copies: string[] = [];
  for (const path of sources(join(repoRoot, 'console', 'src'))) {
    if (path === generated) continue;
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
    for (const statement of source.statements) {
      if ((ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && described.has(statement.name.text))
        copies.push(`${path.slice(repoRoot.length + 1)}: ${statement.name.text}`);
    }
  }
  assert.deepEqual(copies, []);
});
