/**
 * Records between JSON and what records carry: declared fields decoded to their types (missing is
 * null, undeclared properties are not read), a typed group read from its property by type, and a
 * write's group entries merged into those the record has.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildObjects } from '../../../../connectors/http/http-object.js';
import { recordReader, writeBody } from '../../../../connectors/http/record-json.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

const system = {
  kind: 'System',
  id: 'api',
  connector: 'http',
  connection: { baseUrl: 'http://127.0.0.1:1/' },
  queries: {},
  objects: {
    Customer: {
      list: { path: '/customers' },
      key: ['id'],
      fields: { id: { type: 'Integer' }, active: { type: 'Boolean' }, since: { type: 'DateTime' }, meta: { type: 'Json' } },
      groups: {
        addresses: {
          property: 'addressesByType',
          types: ['main', 'invoice'],
          fields: { city: { type: 'String' }, zip: { type: 'String' } },
        },
      },
    },
  },
} as unknown as SystemDefinition;
const object = buildObjects(system).get('Customer')!;

test('fields are decoded to their types, groups read by type from their property', () => {
  const read = recordReader(object);
  assert.deepEqual(
    read({
      id: '7',
      active: 1,
      since: '2024-03-04T07:06:07+02:00',
      meta: '{"a":1}',
      secret: 'not declared',
      addressesByType: { main: { city: 'Leeds', zip: 12345, planet: 'x' }, invoice: 'not an entry', home: { city: 'x' } },
    }),
    { id: 7, active: true, since: '2024-03-04T05:06:07.000Z', meta: { a: 1 }, addresses: { main: { city: 'Leeds', zip: '12345' } } },
  );
  assert.deepEqual(read({}), { id: null, active: null, since: null, meta: null, addresses: {} });
  assert.deepEqual(read({ addressesByType: [{ city: 'x' }] }).addresses, {}, 'an array is no entry by type');
});

test("a write's group entries are merged into the record's own", () => {
  const existing = { id: 1, addressesByType: { main: { city: 'Leeds', zip: '1' }, invoice: { city: 'York' } } };
  const groups = new Map([['addresses', new Map([['main', { city: 'Hull' }]])]]);
  assert.deepEqual(writeBody(object, { active: false }, groups, existing), {
    active: false,
    addressesByType: { main: { city: 'Hull', zip: '1' }, invoice: { city: 'York' } },
  });
  assert.deepEqual(writeBody(object, { id: 2 }, groups, undefined), { id: 2, addressesByType: { main: { city: 'Hull' } } });
});
