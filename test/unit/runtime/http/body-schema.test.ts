/**
 * A route body declared as a JSON Schema (runtime/http/body-schema.ts): normalised along the
 * schema (names and enum values in any case, answered in the schema's spelling; a null the schema
 * takes not is absent), then checked by ajv, with every finding at its JSON pointer in words
 * read from the schema. The routes' own messages are asserted in queue-routes.test.ts and
 * connection-routes.test.ts; these are the rules underneath.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpProblem } from '../../../../runtime/errors.js';
import { notBlank } from '../../../../runtime/http/body-messages.js';
import { requestBody } from '../../../../runtime/http/body-schema.js';

const body = requestBody<Record<string, unknown>>({
  type: 'object',
  required: ['Kind', 'Name'],
  properties: {
    Name: { type: 'string', pattern: notBlank, maxLength: 5 },
    Kind: { enum: ['Small', 'large'] },
    Note: { type: ['string', 'null'] },
    Tags: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', required: ['Key'], properties: { Key: { type: 'string' }, Value: {} }, additionalProperties: false },
    },
  },
  additionalProperties: false,
});

function findings(value: unknown): Array<{ path: string; message: string }> {
  try {
    body.parse(value);
  } catch (error) {
    assert.ok(error instanceof HttpProblem);
    assert.equal(error.status, 400);
    return error.extra.errors ?? [];
  }
  assert.fail('the body was accepted');
}

describe('requestBody', () => {
  it('answers names and enum values in the schema spelling, whatever case they came in', () => {
    assert.deepEqual(body.parse({ name: 'Ada', KIND: 'LARGE', tags: [{ key: 'k', VALUE: null }] }), {
      Name: 'Ada',
      Kind: 'large',
      Tags: [{ Key: 'k', Value: null }],
    });
  });

  it('takes null as absent where the schema takes no null, and keeps it where it does', () => {
    assert.deepEqual(body.parse({ Name: 'Ada', Kind: 'small', Note: null }), { Name: 'Ada', Kind: 'Small', Note: null });
    assert.deepEqual(findings({ Name: null, Kind: 'small' }), [{ path: '/Name', message: 'Name is required: a string.' }]);
  });

  it('reports every finding once, at the field (in the schema spelling), in the order the schema declares them, unknown properties first', () => {
    assert.deepEqual(findings({ tags: [], kind: 'medium', name: '  ', NAME: 'x', Extra: 1 }), [
      { path: '/Extra', message: 'Unknown property "Extra"; the properties are Name, Kind, Note, Tags.' },
      { path: '/NAME', message: 'Name is given twice (in two spellings).' },
      { path: '/Name', message: 'Name must not be empty.' },
      { path: '/Kind', message: 'Kind "medium" is not one of Small, large (any case).' },
      { path: '/Tags', message: 'Tags must be a non-empty array of {"Key": string, "Value": any}.' },
    ]);
    assert.deepEqual(findings({ Name: 'Ada Lovelace', Kind: 'small', Tags: [{ Key: 1 }, 'x'] }), [
      { path: '/Name', message: 'Name has 12 characters; at most 5 are accepted.' },
      { path: '/Tags/0/Key', message: 'Key must be a string, not a number (send "1").' },
      { path: '/Tags/1', message: 'Item 1 of Tags must be a JSON object with Key, Value, not a string.' },
    ]);
    // (A whole number past 2^53 never reaches the schema: read-body.ts refuses the body's text first.)
  });

  it('keeps a property named __proto__ a property, and refuses it as unknown', () => {
    assert.deepEqual(findings(JSON.parse('{"Name": "Ada", "Kind": "small", "__proto__": {"Name": 1}}')), [
      { path: '/__proto__', message: 'Unknown property "__proto__"; the properties are Name, Kind, Note, Tags.' },
    ]);
  });

  it('says what the body must be when it is no object', () => {
    assert.deepEqual(findings([]), [{ path: '', message: 'The body must be a JSON object with Name, Kind, Note, Tags, not an array.' }]);
  });
});

describe('arrays past their limit', () => {
  const limited = requestBody<Record<string, unknown>>({
    type: 'object',
    properties: { Tags: { type: 'array', maxItems: 3, items: { type: 'object', properties: { Key: { type: 'string' } } } } },
  });

  it('are one finding, in the schema’s spelling, whatever the entries hold', () => {
    try {
      limited.parse({ tags: Array.from({ length: 100_000 }, () => ({ Key: 1 })) });
      assert.fail('the body was accepted');
    } catch (error) {
      assert.ok(error instanceof HttpProblem);
      assert.deepEqual(error.extra.errors, [{ path: '/Tags', message: 'Tags holds 100000 entries; at most 3 are accepted.' }]);
    }
  });

  it('and more unknown properties than an answer lists are one finding too', () => {
    const strict = requestBody<Record<string, unknown>>({
      type: 'object',
      properties: { Tags: { type: 'array', maxItems: 3, items: { type: 'object', properties: { Key: {} }, additionalProperties: false } } },
      additionalProperties: false,
    });
    const many = Object.fromEntries(Array.from({ length: 80_000 }, (_, index) => [`x${index}`, 0]));
    for (const [body, path] of [
      [many, '/x0'],
      [{ Tags: [{ Key: 1, ...many }] }, '/Tags/0/x0'],
    ] as const) {
      try {
        strict.parse(body);
        assert.fail('the body was accepted');
      } catch (error) {
        assert.ok(error instanceof HttpProblem);
        assert.deepEqual(error.extra.errors, [
          {
            path,
            message: `The body holds 80000 properties its route does not read (the first at ${path}); send only the properties the route describes.`,
          },
        ]);
      }
    }
    // Up to the listed number, each is named as before.
    assert.equal(
      (() => {
        try {
          strict.parse({ a: 1, b: 2 });
        } catch (error) {
          return (error as HttpProblem).extra.errors?.length;
        }
      })(),
      2,
    );
  });

  it('are declared on every array of every route body, so none is read entry by entry past it', async () => {
    const bodies = await Promise.all([
      import('../../../../runtime/http/write-body.js'),
      import('../../../../runtime/http/queue-body.js'),
      import('../../../../runtime/http/query-body.js'),
      import('../../../../runtime/http/read-parameters.js'),
    ]);
    const schemas = bodies.flatMap((module) =>
      Object.entries(module).filter(([, value]) => typeof value === 'object' && value !== null && 'parse' in value && 'schema' in value),
    );
    assert.ok(schemas.length >= 6, `found ${schemas.map(([name]) => name).join(', ')}`);
    const unlimited: string[] = [];
    const walk = (schema: Record<string, unknown>, at: string) => {
      const types = [schema.type].flat();
      if (types.includes('array') && typeof schema.maxItems !== 'number') unlimited.push(at);
      if (schema.items) walk(schema.items as Record<string, unknown>, `${at}/items`);
      for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>))
        walk(sub, `${at}/${name}`);
    };
    for (const [name, body] of schemas) walk((body as { schema: Record<string, unknown> }).schema, name);
    assert.deepEqual(unlimited, []);
  });
});
