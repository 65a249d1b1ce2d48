/**
 * The conformance fixture on the REST fixture server of our own (test/support/rest-fixture-server.ts),
 * with the paging styles json-server lacks: customers paged by a cursor in the body
 * (`{ data, meta: { total, next_cursor } }`), accounts by absolute next links in a Link header.
 * The server ignores every filter parameter the options declare: the answers must be exact all the
 * same, since the connector checks every record in memory.
 */
import * as httpConnector from '../../../../connectors/http/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { collection, startFixtureServer, type FixtureServer } from '../../../support/rest-fixture-server.js';
import type { ConformanceTarget } from '../conformance.js';
import { crmDefinition } from '../crm-fixture.js';
import { crmDb } from './json-server-crm.js';

export const cursorCustomerOptions = {
  list: { path: '/customers' },
  get: { path: '/customers/{id}' },
  create: { path: '/customers' },
  update: { path: '/customers/{id}' },
  records: 'data',
  total: { expression: 'meta.total' },
  paging: { style: 'cursor', cursor: 'meta.next_cursor', pageSize: 7 },
  // Declared, sent, and ignored by the server.
  filters: [
    { field: 'name', op: '=', param: 'name' },
    { field: 'score', op: '>=', param: 'score_min' },
    { field: 'email', op: 'contains', param: 'email_has' },
    { field: 'id', op: 'in', param: 'ids', separator: ',' },
  ],
};

export const linkAccountOptions = {
  list: { path: '/accounts' },
  get: { path: '/accounts/{AccountNumber}' },
  create: { path: '/accounts' },
  update: { method: 'PUT', path: '/accounts/{AccountNumber}' },
  paging: { style: 'link', sizeParam: 'page_size', pageSize: 2 },
  filters: [{ field: 'Email', op: '=', param: 'Email' }],
};

export function crmFixtureSystem(base: string, overrides: Partial<SystemDefinition> = {}): SystemDefinition {
  return crmDefinition(
    'http',
    // The server answers nothing at its root: check asks a collection.
    { baseUrl: base, check: '/customers', retries: { max: 1, maxWait: '2s' } },
    { Customer: cursorCustomerOptions, Account: linkAccountOptions, addresses: {} },
    {},
    overrides,
  );
}

/** Serves the CRM fixture on a fresh fixture server (ignoring filter parameters). */
export async function startCrmFixture(): Promise<{ server: FixtureServer; db: Record<string, Array<Record<string, unknown>>> }> {
  const server = await startFixtureServer();
  const db = crmDb() as Record<string, Array<Record<string, unknown>>>;
  collection(server, 'customers', db.customers!, { paging: 'cursor', ignoreFilters: true });
  collection(server, 'accounts', db.accounts!, { paging: 'link', idProperty: 'AccountNumber', ignoreFilters: true });
  return { server, db };
}

export function fixtureTarget(
  fixture: () => { server: FixtureServer; db: Record<string, Array<Record<string, unknown>>> },
): ConformanceTarget {
  return {
    module: httpConnector,
    create: async () => {},
    system: (overrides) => crmFixtureSystem(fixture().server.base, overrides),
    unreachable: () => crmFixtureSystem('http://127.0.0.1:1/'),
    baseDirectory: () => process.cwd(),
    counts: async () => {
      const { customers, accounts } = fixture().db;
      const addresses = customers!.reduce((sum, customer) => sum + Object.keys((customer.addresses as object | undefined) ?? {}).length, 0);
      return { Customer: customers!.length, Account: accounts!.length, addresses };
    },
    unsupportedFilters: [],
    defaultOrder: 'insertion',
    generatedKeys: true,
    uniqueConstraints: false,
    discovered: { Customer: cursorCustomerOptions, Account: linkAccountOptions },
  };
}
