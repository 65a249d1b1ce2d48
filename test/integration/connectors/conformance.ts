/**
 * The connector conformance suite: what every connector must do, run against a real system. A
 * connector's test file calls `conformanceSuite` inside a describe block per system it is tested
 * on, with a target: what creates the CRM fixture in that system, the fixture's System definition
 * for the connector, and the few things that differ by system (which filters it refuses, whether
 * it generates keys, keeps unique values, sorts by key when no order is asked). The suite opens one
 * connection through the connector module and checks describe, check, streamed reads, filters
 * (against the JS evaluator), id, paging and order, count, groups and discover; writes follow in
 * conformance-write.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Connection, ConnectorModule, ReadRequest, RecordData } from '../../../connectors/connection.js';
import { ConnectorError, type ConnectorErrorCode } from '../../../connectors/connector-error.js';
import type { SystemDefinition } from '../../../definitions/types.js';
import { evaluateCondition, parseExpression, recordScope, resolvePath } from '../../../definitions/expression/index.js';
import { parseOrder } from '../../../definitions/order/parse-order.js';
import { ACCOUNTS, ADDRESSES, CUSTOMERS } from './crm-fixture.js';
import { FILTER_CASES, UNKNOWN_FIELD_FILTERS } from './filter-cases.js';
import { writeConformance } from './conformance-write.js';

/** One system holding the fixture, as a connector's test gives it to the suite. */
export interface ConformanceTarget {
  module: ConnectorModule;
  /** Creates the fixture (CUSTOMERS with their ADDRESSES, ACCOUNTS) in a fresh system, before the suite. */
  create(): Promise<void>;
  /** The fixture's System definition for this connector (crm-fixture.ts crmDefinition), with overrides. */
  system(overrides?: Partial<SystemDefinition>): SystemDefinition;
  /** The same System pointed somewhere that does not answer (a closed port, a missing directory). */
  unreachable(): SystemDefinition;
  baseDirectory(): string;
  /** Records of Customer, Account and the addresses, counted in the system itself, not through the connector. */
  counts(): Promise<Record<'Customer' | 'Account' | 'addresses', number>>;
  /** Filters the connector refuses with 'unsupported' (the evaluator has an answer; the system no faithful one). */
  unsupportedFilters: readonly string[];
  /** How records come when no order is asked: sorted by key, or as they were created. */
  defaultOrder: 'key' | 'insertion';
  /** The system gives a new record its key (Customer.id is then read-only). */
  generatedKeys: boolean;
  /** The system refuses a second Account with the same Email. */
  uniqueConstraints: boolean;
  /** The connector options discover gives the fixture's objects (the addresses when it lists them as an object). */
  discovered: { Customer: Record<string, unknown>; Account: Record<string, unknown>; addresses?: Record<string, unknown> };
}

export interface SuiteContext {
  target: ConformanceTarget;
  connection: () => Connection;
  typedGroups: boolean;
}

export async function readAll(
  connection: Connection,
  object: string,
  request: ReadRequest = {},
): Promise<{ records: RecordData[]; pages: number[] }> {
  const records: RecordData[] = [];
  const pages: number[] = [];
  for await (const page of connection.read(object, request)) {
    pages.push(page.length);
    records.push(...page);
  }
  return { records, pages };
}

export async function rejectsWith(action: () => Promise<unknown>, code: ConnectorErrorCode, message?: RegExp): Promise<ConnectorError> {
  try {
    await action();
  } catch (error) {
    assert.ok(error instanceof ConnectorError, `expected a ConnectorError '${code}', got ${String(error)}`);
    assert.equal(error.code, code, `expected '${code}', got '${error.code}': ${error.message}`);
    if (message) assert.match(error.message, message);
    return error;
  }
  assert.fail(`expected a ConnectorError '${code}', but it succeeded`);
}

const placeholderFn =
  (values: Record<string, unknown> = {}) =>
  (path: readonly string[]) =>
    resolvePath(values, path);
const ids = (records: readonly RecordData[]): number[] => records.map((record) => Number(record.id));
const mentionsGroups = (text: string): boolean => text.includes('addresses');

/** Code-unit order with nulls first, as every connector promises for String fields. */
function compareForOrder(a: unknown, b: unknown): number {
  if ((a ?? null) === (b ?? null)) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'boolean' || typeof a === 'number') return Number(a) - Number(b);
  return String(a) < String(b) ? -1 : 1;
}

export function conformanceSuite(target: ConformanceTarget): void {
  const { module } = target;
  const typedGroups = module.spec.capabilities.typedGroups;
  let connection: Connection | undefined;
  let everyone: RecordData[] = [];
  const context: SuiteContext = { target, typedGroups, connection: () => connection! };
  const name = module.spec.name;

  before(async () => {
    await target.create();
    connection = module.createConnection(target.system(), { baseDirectory: target.baseDirectory() });
    everyone = (await readAll(connection, 'Customer')).records;
  });
  after(async () => {
    await connection?.close();
  });

  test('describe gives the declared fields, key and groups', () => {
    const description = connection!.describe('Customer');
    assert.deepEqual(description.key, ['id']);
    assert.deepEqual(
      description.fields.find((field) => field.name === 'id'),
      { name: 'id', type: 'Integer', required: false, readOnly: target.generatedKeys },
    );
    assert.deepEqual(
      description.groups.map((group) => [group.name, group.types, group.fields.map((field) => field.name)]),
      typedGroups ? [['addresses', ['main', 'invoice'], ['street', 'city', 'zip', 'country']]] : [],
    );
    assert.ok(connection!.describe('ReadOnlyCustomer').fields.every((field) => field.readOnly));
    assert.throws(
      () => connection!.describe('Nope'),
      (error: unknown) => error instanceof ConnectorError && error.code === 'unknown-object',
    );
  });

  test('check resolves for a reachable system and says unavailable otherwise', async () => {
    await connection!.check();
    const unreachable = module.createConnection(target.unreachable(), { baseDirectory: target.baseDirectory() });
    try {
      const error = await rejectsWith(() => unreachable.check(), 'unavailable');
      assert.doesNotMatch(error.message, /password|secret|token|postgres:\/\/|mysql:\/\/|SELECT/i);
    } finally {
      await unreachable.close();
    }
  });

  test('read streams every record in pages of the requested size', async () => {
    const { records, pages } = await readAll(connection!, 'Customer', { pageSize: 7 });
    assert.equal(records.length, CUSTOMERS.length);
    assert.ok(pages.length > 2 && pages.slice(0, -1).every((size) => size === 7), `pages ${pages.join(',')}`);
    assert.deepEqual(
      ids(records),
      CUSTOMERS.map((row) => row.id),
    );
    const first = records[0]!;
    const expected = CUSTOMERS[0]!;
    assert.deepEqual({ ...first, addresses: undefined }, { ...expected, addresses: undefined });
  });

  test('records carry typed values as declared', () => {
    for (const record of everyone) {
      const row = CUSTOMERS.find((candidate) => candidate.id === record.id)!;
      assert.deepEqual(
        [record.name, record.email, record.active, record.score, record.balance, record.birthday, record.updated_at, record.meta],
        [row.name, row.email, row.active, row.score, row.balance, row.birthday, row.updated_at, row.meta],
        `customer ${row.id}`,
      );
    }
  });

  test('groups are attached per type; absent types are absent', {
    skip: !typedGroups && `the ${name} connector has no typed groups`,
  }, () => {
    for (const record of everyone) {
      const expected: Record<string, unknown> = {};
      for (const row of ADDRESSES.filter((address) => address.customer_id === record.id)) {
        expected[row.type] = { street: row.street, city: row.city, zip: row.zip, country: row.country };
      }
      assert.deepEqual(record.addresses, expected, `addresses of customer ${String(record.id)}`);
    }
  });

  for (const { filter, placeholders } of FILTER_CASES) {
    if (!typedGroups && mentionsGroups(filter)) continue;
    test(`filter ${filter}${placeholders ? ` with ${JSON.stringify(placeholders)}` : ''} selects what the JS evaluator selects`, async () => {
      const ast = parseExpression(filter);
      const expected = ids(everyone.filter((record) => evaluateCondition(ast, recordScope(record, placeholders ?? {}))));
      const request = { filter: ast, placeholders: placeholderFn(placeholders) };
      if (target.unsupportedFilters.includes(filter)) {
        await rejectsWith(() => readAll(connection!, 'Customer', { ...request, pageSize: 9 }), 'unsupported');
        return;
      }
      const { records } = await readAll(connection!, 'Customer', { ...request, pageSize: 9 });
      assert.deepEqual(ids(records), expected);
      assert.equal(await connection!.count('Customer', request), expected.length);
    });
  }

  test('filters the connector cannot express are refused with unsupported, naming the construct', async () => {
    for (const filter of target.unsupportedFilters) {
      const error = await rejectsWith(() => readAll(connection!, 'Customer', { filter: parseExpression(filter) }), 'unsupported');
      assert.match(error.message, new RegExp(`${name} connector`));
    }
  });

  test('filters naming undeclared fields are refused with unknown-field', async () => {
    for (const filter of UNKNOWN_FIELD_FILTERS) {
      const error = await rejectsWith(() => connection!.count('Customer', { filter: parseExpression(filter) }), 'unknown-field');
      assert.match(error.message, /its fields are id, name/);
    }
    if (typedGroups) {
      await rejectsWith(
        () => connection!.count('Customer', { filter: parseExpression("addresses.city = 'x'") }),
        'unknown-field',
        /addresses\.main\.city or addresses\.invoice\.city/,
      );
    }
  });

  test('id reads one record, or none', async () => {
    assert.deepEqual(ids((await readAll(connection!, 'Customer', { id: { id: 7 } })).records), [7]);
    assert.deepEqual(ids((await readAll(connection!, 'Customer', { id: { id: '7' } })).records), [7]);
    assert.deepEqual((await readAll(connection!, 'Customer', { id: { id: 999_999 } })).records, []);
    await rejectsWith(() => readAll(connection!, 'Customer', { id: { id: 'x' } }), 'invalid-value');
    const account = await readAll(connection!, 'Account', { id: { AccountNumber: 'a-1' } });
    assert.deepEqual(
      account.records.map((record) => record.AccountName),
      ['first lower'],
    );
    await rejectsWith(() => readAll(connection!, 'Customer', { id: { name: 'Ada' } }), 'unknown-field');
    await rejectsWith(() => readAll(connection!, 'Account', { id: {} }), 'invalid-value');
  });

  const orders = [
    'name asc',
    'name desc',
    'active desc, score asc',
    'birthday, balance desc',
    'email',
    'addresses.main.city desc, id desc',
  ];
  for (const clause of orders) {
    if (!typedGroups && mentionsGroups(clause)) continue;
    test(`order ${clause}, with skip and limit across pages`, async () => {
      const terms = parseOrder(clause);
      const sorted = [...everyone].sort((a, b) => {
        for (const term of terms) {
          const order = compareForOrder(resolvePath(a, term.field), resolvePath(b, term.field));
          if (order !== 0) return term.direction === 'asc' ? order : -order;
        }
        return Number(a.id) - Number(b.id);
      });
      assert.deepEqual(ids((await readAll(connection!, 'Customer', { order: terms, pageSize: 5 })).records), ids(sorted));
      assert.deepEqual(
        ids((await readAll(connection!, 'Customer', { order: terms, skip: 4, limit: 11, pageSize: 3 })).records),
        ids(sorted.slice(4, 15)),
      );
    });
  }

  test('without an order, skip, limit and small pages page through the records in their order', async () => {
    const { records, pages } = await readAll(connection!, 'Customer', { skip: 3, limit: 10, pageSize: 4 });
    assert.deepEqual(
      ids(records),
      CUSTOMERS.slice(3, 13).map((row) => row.id),
    );
    assert.deepEqual(pages, [4, 4, 2]);
    assert.deepEqual((await readAll(connection!, 'Customer', { limit: 0 })).records, []);
    assert.deepEqual(
      ids((await readAll(connection!, 'Customer', { skip: CUSTOMERS.length - 2 })).records),
      CUSTOMERS.slice(-2).map((row) => row.id),
    );
    await rejectsWith(() => readAll(connection!, 'Customer', { limit: -1 }), 'invalid-value');
    await rejectsWith(() => readAll(connection!, 'Customer', { order: parseOrder('nope') }), 'unknown-field');
  });

  test('paging over a string key keeps code point order', async () => {
    const { records, pages } = await readAll(connection!, 'Account', { pageSize: 1 });
    const natural = target.defaultOrder === 'key' ? ["A-'2", 'A-1', 'a-1'] : ACCOUNTS.map((account) => account.AccountNumber);
    assert.deepEqual(
      records.map((record) => record.AccountNumber),
      natural,
    );
    assert.deepEqual(pages, [1, 1, 1]);
    const descending = await readAll(connection!, 'Account', { pageSize: 2, order: parseOrder('AccountNumber desc') });
    assert.deepEqual(
      descending.records.map((record) => record.AccountNumber),
      ['a-1', 'A-1', "A-'2"],
    );
  });

  test('count with and without a filter', async () => {
    assert.equal(await connection!.count('Customer'), CUSTOMERS.length);
    assert.equal(
      await connection!.count('Customer', { filter: parseExpression('score >= 50') }),
      CUSTOMERS.filter((row) => row.score !== null && row.score >= 50).length,
    );
    await rejectsWith(() => connection!.count('Nope'), 'unknown-object');
  });

  test('a read stops when its signal is aborted', async () => {
    const controller = new AbortController();
    const pages: number[] = [];
    await assert.rejects(async () => {
      for await (const page of connection!.read('Customer', { pageSize: 5, signal: controller.signal })) {
        pages.push(page.length);
        controller.abort();
      }
    }, /abort/i);
    assert.deepEqual(pages, [5]);
  });

  test('discover lists the objects with their fields, keys and the options that reach them', async () => {
    const objects = await connection!.discover();
    const find = (options: Record<string, unknown>) => {
      const found = objects.find((object) => JSON.stringify(object.options) === JSON.stringify(options));
      assert.ok(
        found,
        `an object with ${JSON.stringify(options)} among ${objects.map((object) => JSON.stringify(object.options)).join(', ')}`,
      );
      return found;
    };
    const customers = find(target.discovered.Customer);
    assert.deepEqual(customers.key, ['id']);
    const types = Object.fromEntries(customers.fields.map((field) => [field.name, field.type]));
    assert.deepEqual(
      { ...types, meta: undefined },
      {
        id: 'Integer',
        name: 'String',
        email: 'String',
        active: 'Boolean',
        score: 'Integer',
        balance: 'Number',
        birthday: 'Date',
        updated_at: 'DateTime',
        notes: 'String',
        meta: undefined,
      },
    );
    assert.equal(customers.fields.find((field) => field.name === 'email')?.nullable, true);
    assert.equal(customers.fields.find((field) => field.name === 'name')?.nullable, false);
    assert.deepEqual(find(target.discovered.Account).key, ['AccountNumber']);
    if (target.discovered.addresses !== undefined) assert.ok(find(target.discovered.addresses).key.includes('type'));
  });

  writeConformance(context);
}
