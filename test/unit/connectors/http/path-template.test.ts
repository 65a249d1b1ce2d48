/**
 * Path templates: parsed into text and field placeholders, refused when malformed, and filled with
 * values that stay data — encoded whole, never a new segment, never `.` or `..`, never empty.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { fillPathTemplate, parsePathTemplate, TemplateSyntaxError } from '../../../../connectors/http/path-template.js';

const target = { object: 'Customer', operation: 'update' };
const fill = (text: string, values: Record<string, unknown>) => fillPathTemplate(parsePathTemplate(text), values, target);

test('a template names its fields once each, in order', () => {
  assert.deepEqual(parsePathTemplate('/customers/{id}/notes/{ note_id }/{id}').fields, ['id', 'note_id']);
  assert.deepEqual(parsePathTemplate('/customers').parts, [{ kind: 'text', text: '/customers' }]);
});

test('malformed templates are refused with where they go wrong', () => {
  assert.throws(() => parsePathTemplate('/customers/{id'), TemplateSyntaxError);
  assert.throws(() => parsePathTemplate('/customers/id}'), /'}' at 14 closes no '{'/);
  assert.throws(() => parsePathTemplate('/customers/{a.b}'), /\{a\.b\} is not a field name/);
  assert.throws(() => parsePathTemplate('/customers/{}'), TemplateSyntaxError);
});

test('values are encoded whole: slashes, queries, fragments and spaces stay inside their segment', () => {
  assert.equal(fill('/customers/{id}', { id: 7 }), '/customers/7');
  assert.equal(fill('/accounts/{n}', { n: "A-'2" }), "/accounts/A-'2");
  assert.equal(fill('/accounts/{n}', { n: 'a/b?x=1#y' }), '/accounts/a%2Fb%3Fx%3D1%23y');
  assert.equal(fill('/accounts/{n}', { n: 'Zoë 🙂 %41' }), '/accounts/Zo%C3%AB%20%F0%9F%99%82%20%2541');
  assert.equal(fill('/flags/{on}', { on: false }), '/flags/false');
  assert.equal(fill('/files/{name}.json', { name: '..a' }), '/files/..a.json');
});

test('values that would address another resource, or none, are refused naming the field', () => {
  for (const id of ['.', '..']) {
    assert.throws(
      () => fill('/customers/{id}', { id }),
      (error: unknown) =>
        error instanceof ConnectorError &&
        error.code === 'invalid-value' &&
        /Customer: the update path \/customers\/\{id\} cannot take id/.test(error.message),
    );
  }
  assert.throws(() => fill('/customers/{a}{b}', { a: '.', b: '.' }), /cannot take b/);
  assert.throws(() => fill('/customers/{id}', { id: '' }), /its value is empty/);
  assert.throws(() => fill('/customers/{id}', {}), /it has no value/);
  assert.throws(() => fill('/customers/{id}', { id: null }), /it has no value/);
  assert.throws(() => fill('/customers/{id}', { id: { nested: 1 } }), /it has no value/);
  assert.throws(() => fill('/customers/{id}', { id: Number.NaN }), /it has no value/);
});
