/**
 * The conformance fixture on json-server 0.17: customers with their addresses nested per customer
 * (`addresses: { main: {…}, invoice: {…} }`, absent for a customer without any), and accounts,
 * which json-server finds by AccountNumber. The `http` connector's options reach both with what
 * json-server offers: offset paging (`_start`, `_limit`) for customers and page paging (`_page`,
 * `_limit`) for accounts, X-Total-Count, `_sort`/`_order`, and field filters (`f=`, `f_ne`,
 * `f_gte`, `f_lte`, `f_like` — a case-insensitive regular expression, so sent as an escaped
 * pattern: a superset of what LIKE and contains mean).
 */
import * as httpConnector from '../../../../connectors/http/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import type { JsonServer } from '../../../support/json-server.js';
import type { ConformanceTarget } from '../conformance.js';
import { ACCOUNTS, ADDRESSES, CUSTOMERS, crmDefinition } from '../crm-fixture.js';

/** The fixture as json-server's db.json. */
export function crmDb(): Record<string, unknown> {
  const customers = CUSTOMERS.map((row) => {
    const addresses: Record<string, unknown> = {};
    for (const { customer_id, type, ...entry } of ADDRESSES.filter((address) => address.customer_id === row.id)) addresses[type] = entry;
    return Object.keys(addresses).length > 0 ? { ...row, addresses } : { ...row };
  });
  return { customers, accounts: ACCOUNTS.map((account) => ({ ...account })) };
}

export const crmJsonServerOptions = { ids: { accounts: 'AccountNumber' } };

const range = (field: string) => [
  { field, op: '>=', param: `${field}_gte` },
  { field, op: '<=', param: `${field}_lte` },
];
const text = (field: string) =>
  ['like', 'contains', 'startswith', 'endswith'].map((op) => ({ field, op, param: `${field}_like`, value: 'regex' }));

export const customerOptions = {
  list: { path: '/customers' },
  get: { path: '/customers/{id}' },
  create: { path: '/customers' },
  update: { method: 'PATCH', path: '/customers/{id}' },
  total: { header: 'X-Total-Count' },
  paging: { style: 'offset', offsetParam: '_start', limitParam: '_limit', pageSize: 10 },
  filters: [
    { field: 'id', op: 'in', param: 'id' },
    { field: 'name', op: '=', param: 'name' },
    { field: 'name', op: '<>', param: 'name_ne' },
    ...range('name'),
    ...text('name'),
    { field: 'email', op: '=', param: 'email' },
    ...text('email'),
    { field: 'active', op: '=', param: 'active' },
    { field: 'score', op: '=', param: 'score' },
    ...range('score'),
    ...range('balance'),
    { field: 'birthday', op: '=', param: 'birthday' },
    ...range('birthday'),
    ...range('updated_at'),
    { field: 'addresses.main.city', op: '=', param: 'addresses.main.city' },
    { field: 'addresses.main.country', op: 'in', param: 'addresses.main.country' },
  ],
  sort: { param: '_sort', directionParam: '_order', fields: ['id', 'name'] },
};

export const accountOptions = {
  list: { path: '/accounts' },
  get: { path: '/accounts/{AccountNumber}' },
  create: { path: '/accounts' },
  update: { method: 'PUT', path: '/accounts/{AccountNumber}' },
  total: { header: 'X-Total-Count' },
  paging: { style: 'page', pageParam: '_page', sizeParam: '_limit', pageSize: 2 },
  filters: [
    { field: 'AccountNumber', op: 'in', param: 'AccountNumber' },
    { field: 'Email', op: '=', param: 'Email' },
  ],
  sort: { param: '_sort', directionParam: '_order', fields: ['AccountNumber'] },
};

export function crmHttpSystem(base: string, overrides: Partial<SystemDefinition> = {}): SystemDefinition {
  return crmDefinition(
    'http',
    { baseUrl: base, retries: { max: 1, maxWait: '2s' } },
    { Customer: customerOptions, Account: accountOptions, addresses: {} },
    {},
    overrides,
  );
}

/** The shared suite's view of one json-server. */
export function jsonServerTarget(server: () => JsonServer): ConformanceTarget {
  return {
    module: httpConnector,
    create: async () => {},
    system: (overrides) => crmHttpSystem(server().base, overrides),
    unreachable: () => crmHttpSystem('http://127.0.0.1:1/'),
    baseDirectory: () => process.cwd(),
    counts: async () => {
      const customers = (await server().get('/customers')) as Array<{ addresses?: Record<string, unknown> }>;
      const accounts = (await server().get('/accounts')) as unknown[];
      const addresses = customers.reduce((sum, customer) => sum + Object.keys(customer.addresses ?? {}).length, 0);
      return { Customer: customers.length, Account: accounts.length, addresses };
    },
    unsupportedFilters: [],
    defaultOrder: 'insertion',
    generatedKeys: true,
    uniqueConstraints: false,
    discovered: { Customer: customerOptions, Account: accountOptions },
  };
}
