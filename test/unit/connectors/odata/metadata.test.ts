/**
 * $metadata read into the connector's model (a fixture with aliases, inheritance, a type
 * definition, an enumeration, complex collections and navigations), documents past the limits on a
 * model's size refused, objects joined to it with the definition's mistakes reported as
 * 'definition-mismatch', and discover's objects.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { discoverObjects } from '../../../../connectors/odata/discover.js';
import { bindObject, buildODataObjects } from '../../../../connectors/odata/object-model.js';
import {
  MetadataFormatError,
  maxHeldProperties,
  maxInheritanceDepth,
  maxStructuredTypes,
  parseMetadata,
} from '../../../../connectors/odata/parse-metadata.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

const xml = readFileSync(join(import.meta.dirname, '../../../fixtures/odata-metadata/shop.xml'), 'utf8');
const model = parseMetadata(xml);

function system(objects: Record<string, unknown>): SystemDefinition {
  return { kind: 'System', id: 'shop', connector: 'odata', connection: { baseUrl: 'http://h/' }, objects, queries: {} } as SystemDefinition;
}

const customer = (fields: Record<string, unknown>, more: Record<string, unknown> = {}) =>
  system({ Customer: { entitySet: 'Customers', key: ['ID'], fields: { ID: { type: 'String' }, ...fields }, ...more } });

function mismatch(definition: SystemDefinition, message: RegExp): void {
  const object = buildODataObjects(definition).get('Customer')!;
  assert.throws(
    () => bindObject(object, model),
    (error: unknown) => error instanceof ConnectorError && error.code === 'definition-mismatch' && message.test(error.message),
  );
}

/** A $metadata of schema S declaring `types`. */
const schema = (types: string[]) =>
  `<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices><Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">${types.join('')}</Schema></edmx:DataServices></edmx:Edmx>`;

/** Entity types T0 (keyed by p0) to T<count-1>, each deriving from the one before and declaring p<i>. */
function chain(count: number, order: 'base first' | 'deepest first'): string {
  const types = Array.from({ length: count }, (_, index) =>
    index === 0
      ? '<EntityType Name="T0"><Key><PropertyRef Name="p0"/></Key><Property Name="p0" Type="Edm.Int32" Nullable="false"/></EntityType>'
      : `<EntityType Name="T${index}" BaseType="S.T${index - 1}"><Property Name="p${index}" Type="Edm.String"/></EntityType>`,
  );
  return schema(order === 'base first' ? types : types.reverse());
}

describe('parseMetadata', () => {
  test('entity sets, keys and properties with aliases, base types and type definitions resolved', () => {
    assert.deepEqual([...model.entitySets.keys()], ['Customers', 'Orders']);
    assert.equal(model.entitySets.get('Customers')!.type, 'Shop.Types.Customer');
    const type = model.types.get('Shop.Types.Customer')!;
    assert.deepEqual(type.key, ['ID']);
    assert.deepEqual(type.properties.get('ID'), { name: 'ID', type: 'Edm.Guid', collection: false, nullable: false });
    assert.deepEqual(type.properties.get('email'), { name: 'email', type: 'Edm.String', collection: false, nullable: true });
    assert.deepEqual(type.properties.get('name'), { name: 'name', type: 'Edm.String', collection: false, nullable: false });
    assert.deepEqual(type.properties.get('addresses'), { name: 'addresses', type: 'Shop.Types.Address', collection: true, nullable: true });
    assert.equal(type.properties.get('status')!.type, 'Shop.Types.Status');
    assert.ok(model.enums.has('Shop.Types.Status'));
    assert.deepEqual(type.navigations.get('orders'), { name: 'orders', type: 'Shop.Types.Order', collection: true, nullable: true });
    assert.deepEqual(type.navigations.get('manager'), { name: 'manager', type: 'Shop.Types.Customer', collection: false, nullable: true });
    assert.deepEqual(model.types.get('Shop.Types.Order')!.key, ['customer_ID', 'number']);
    assert.equal(model.types.get('Shop.Types.Address')!.kind, 'complex');
  });

  test('what is not an OData v4 $metadata is refused', () => {
    assert.throws(() => parseMetadata('<html><body>Sign in</body></html>'), MetadataFormatError);
    assert.throws(() => parseMetadata('{"value": []}'), MetadataFormatError);
    assert.throws(() => parseMetadata('<edmx:Edmx Version="1.0" xmlns:edmx="x"><edmx:DataServices/></edmx:Edmx>'), /version 1.0/);
  });

  test('a BaseType chain as deep as the limit is read, its deepest type holding every key and property above it, base first', () => {
    const deepest = parseMetadata(chain(maxInheritanceDepth + 1, 'deepest first')).types.get(`S.T${maxInheritanceDepth}`)!;
    assert.deepEqual(deepest.key, ['p0']);
    assert.deepEqual(
      [...deepest.properties.keys()],
      Array.from({ length: maxInheritanceDepth + 1 }, (_, index) => `p${index}`),
    );
    assert.deepEqual(deepest.properties.get('p0'), { name: 'p0', type: 'Edm.Int32', collection: false, nullable: false });
  });

  test('a BaseType chain one level deeper is refused, naming its deepest type', () => {
    assert.throws(() => parseMetadata(chain(maxInheritanceDepth + 2, 'base first')), {
      name: 'MetadataLimitError',
      message: 'type S.T101 has 101 levels of BaseType above it, over the limit of 100',
    });
  });

  test('a chain of 30,000 types, deepest first, is walked whole without recursion and refused naming its deepest type', () => {
    assert.throws(() => parseMetadata(chain(30_000, 'deepest first')), {
      name: 'MetadataLimitError',
      message: 'type S.T29999 has 29,999 levels of BaseType above it, over the limit of 100',
    });
  });

  test('a BaseType cycle inherits nothing where it closes', () => {
    const model = parseMetadata(
      schema([
        '<ComplexType Name="A" BaseType="S.B"><Property Name="a" Type="Edm.String"/></ComplexType>',
        '<ComplexType Name="B" BaseType="S.A"><Property Name="b" Type="Edm.String"/></ComplexType>',
        '<ComplexType Name="C" BaseType="S.C"><Property Name="c" Type="Edm.String"/></ComplexType>',
      ]),
    );
    assert.deepEqual([...model.types.get('S.A')!.properties.keys()], ['b', 'a']);
    assert.deepEqual([...model.types.get('S.B')!.properties.keys()], ['b']);
    assert.deepEqual([...model.types.get('S.C')!.properties.keys()], ['c']);
  });

  test('more types than the limit are refused, counted', () => {
    const types = Array.from({ length: maxStructuredTypes + 1 }, (_, index) => `<ComplexType Name="C${index}"/>`);
    assert.throws(() => parseMetadata(schema(types)), {
      name: 'MetadataLimitError',
      message: 'the document declares 50,001 entity and complex types, over the limit of 50,000',
    });
  });

  test('types holding more properties than the limit, inherited ones counted in each heir, are refused', () => {
    // 1,000 properties inherited by 1,000 types: 80 kB of XML, a million properties held.
    const inherited = Array.from({ length: 1000 }, (_, index) => `<Property Name="p${index}" Type="Edm.String"/>`).join('');
    const heirs = Array.from({ length: maxHeldProperties / 1000 }, (_, index) => `<ComplexType Name="H${index}" BaseType="S.Base"/>`);
    assert.throws(() => parseMetadata(schema([`<ComplexType Name="Base">${inherited}</ComplexType>`, ...heirs])), {
      name: 'MetadataLimitError',
      message:
        'the types hold more than the limit of 1,000,000 properties and navigation properties (an inherited one counted in each type that inherits it)',
    });
  });
});

describe('bindObject', () => {
  test('joins declared fields and groups to the service types', () => {
    const definition = customer(
      {
        name: { type: 'String' },
        since: { type: 'Date' },
        seen: { type: 'DateTime' },
        credit: { type: 'Number' },
        visits: { type: 'Integer' },
      },
      {
        groups: {
          addresses: { property: 'addresses', typeField: 'kind', types: ['home'], fields: { city: { type: 'String' } } },
          orders: { navigation: 'orders', typeField: 'type', types: ['web'], fields: { total: { type: 'Number' } } },
        },
      },
    );
    const bound = bindObject(buildODataObjects(definition).get('Customer')!, model);
    assert.equal(bound.entitySet, 'Customers');
    assert.deepEqual(bound.serviceKey, [{ name: 'ID', edm: 'guid' }]);
    assert.equal(bound.keyIsServiceKey, true);
    assert.equal(bound.fields.get('credit')!.edm, 'decimal');
    assert.equal(bound.groups.get('addresses')!.kind, 'complex');
    assert.deepEqual(bound.groups.get('orders')!.entryKey, [
      { name: 'customer_ID', edm: 'guid' },
      { name: 'number', edm: 'integer' },
    ]);
  });

  test('what the service lacks is a definition-mismatch naming it', () => {
    mismatch(
      system({ Customer: { entitySet: 'Clients', key: ['ID'], fields: { ID: { type: 'String' } } } }),
      /no entity set 'Clients' \(its \$metadata lists Customers, Orders\)/,
    );
    mismatch(
      customer({ nope: { type: 'String' } }),
      /declares field 'nope', but the service's type Shop\.Types\.Customer has no property of that name/,
    );
    mismatch(customer({ credit: { type: 'Integer' } }), /declares field 'credit' as Integer, which cannot hold the service's Edm\.Decimal/);
    mismatch(customer({ name: { type: 'Number' } }), /'name' as Number, which cannot hold the service's Edm\.String/);
    mismatch(customer({ status: { type: 'String' } }), /'status' as String, which cannot hold the service's Shop\.Types\.Status/);
    mismatch(
      customer({}, { groups: { orders: { navigation: 'manager', types: ['x'], fields: {} } } }),
      /navigation 'manager', which is not a collection-valued navigation property/,
    );
    mismatch(
      customer({}, { groups: { orders: { navigation: 'orders', typeField: 'kind', types: ['x'], fields: {} } } }),
      /typeField 'kind' is not a text or integer property of Shop\.Types\.Order/,
    );
    mismatch(
      customer({}, { groups: { tags: { property: 'tags', types: ['x'], fields: {} } } }),
      /property 'tags', which is not a collection of complex type/,
    );
  });

  test('Json holds anything', () => {
    const bound = bindObject(
      buildODataObjects(customer({ status: { type: 'Json' }, addresses: { type: 'Json' }, opens: { type: 'Json' } })).get('Customer')!,
      model,
    );
    assert.deepEqual([...bound.fields.keys()], ['ID', 'status', 'addresses', 'opens']);
  });
});

describe('discoverObjects', () => {
  test('each entity set with its key, typed fields and notes on what is not a plain field', () => {
    const [customers, orders] = discoverObjects(model);
    assert.deepEqual(customers!.options, { entitySet: 'Customers' });
    assert.deepEqual(customers!.key, ['ID']);
    assert.deepEqual(
      customers!.fields.map((field) => [field.name, field.type, field.nullable]),
      [
        ['ID', 'String', false],
        ['email', 'String', true],
        ['name', 'String', false],
        ['since', 'Date', true],
        ['seen', 'DateTime', true],
        ['credit', 'Number', true],
        ['visits', 'Integer', true],
        ['vip', 'Boolean', true],
        ['status', 'Json', true],
        ['addresses', 'Json', true],
        ['tags', 'Json', true],
        ['opens', 'Json', true],
      ],
    );
    const notes = customers!.notes!.join('\n');
    assert.match(notes, /'status' is Shop\.Types\.Status: read as Json/);
    assert.match(notes, /'addresses' is Collection\(Shop\.Types\.Address\)/);
    assert.match(notes, /'ID' is an Edm\.Guid/);
    assert.match(
      notes,
      /navigation 'orders' of Shop\.Types\.Customer is a collection of Shop\.Types\.Order: .*navigation: orders, typeField: type/,
    );
    assert.deepEqual(orders!.key, ['customer_ID', 'number']);
  });
});
