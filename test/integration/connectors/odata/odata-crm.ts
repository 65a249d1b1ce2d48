/**
 * The conformance fixture in a CAP service (test/support/odata-server.ts): the CRM's customers with
 * their addresses created through the service itself (one deep insert each), its accounts, and the
 * `odata` connector's target for the shared suite.
 *
 * `meta` (Json) is JSON text in an Edm.String property; `updated_at` is sent as ISO UTC.
 */
import * as odataConnector from '../../../../connectors/odata/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import type { ODataServer } from '../../../support/odata-server.js';
import type { ConformanceTarget } from '../conformance.js';
import { ACCOUNTS, ADDRESSES, CUSTOMERS, crmDefinition } from '../crm-fixture.js';

/** POSTs `body` to `path` below the service root; throws with the answer when it is not 201. */
export async function post(server: ODataServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(new URL(path, server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${path}: HTTP ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/** The fixture's customers (with addresses) and accounts, created in the service. */
export async function createCrm(server: ODataServer, headers: Record<string, string> = {}): Promise<void> {
  for (const customer of CUSTOMERS) {
    const addresses = ADDRESSES.filter((address) => address.customer_id === customer.id).map(({ customer_id: _, ...address }) => address);
    await post(
      server,
      'Customers',
      { ...customer, meta: customer.meta === null ? null : JSON.stringify(customer.meta), ...(addresses.length > 0 ? { addresses } : {}) },
      headers,
    );
  }
  for (const account of ACCOUNTS) await post(server, 'Accounts', account, headers);
}

/** How many entities an entity set holds, counted by the service itself. */
export async function countOf(server: ODataServer, set: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(new URL(`${set}/$count`, server.url), { headers });
  return Number(await response.text());
}

/** The fixture's System definition for the service. */
export function crmSystem(
  server: ODataServer,
  overrides: Partial<SystemDefinition> = {},
  connection: Record<string, unknown> = {},
): SystemDefinition {
  return crmDefinition(
    'odata',
    { baseUrl: server.url, ...connection },
    {
      Customer: { entitySet: 'Customers' },
      Account: { entitySet: 'Accounts' },
      addresses: { navigation: 'addresses', typeField: 'type' },
    },
    { generatedKeys: false },
    overrides,
  );
}

/**
 * The shared suite's view of one CAP service. The filters refused, each for what OData cannot say:
 * LIKE with `_` or with `%` between characters; LIKE on an Integer or a Date (OData's string
 * functions take text only); a String field against a number or boolean (the evaluator reads
 * numeric and boolean text, OData compares text); a Date field against a DateTime field (the
 * evaluator compares their ISO texts); two group entries with each other (CAP has no lambda over
 * the outer entity).
 */
export function odataTarget(server: () => ODataServer, connection: Record<string, unknown> = {}): ConformanceTarget {
  return {
    module: odataConnector,
    create: () => createCrm(server()),
    system: (overrides) => crmSystem(server(), overrides, connection),
    unreachable: () => crmSystem(server(), {}, { ...connection, baseUrl: 'http://127.0.0.1:1/odata/v4/crm/' }),
    baseDirectory: () => process.cwd(),
    counts: async () => ({
      Customer: await countOf(server(), 'Customers'),
      Account: await countOf(server(), 'Accounts'),
      addresses: await countOf(server(), 'Addresses'),
    }),
    unsupportedFilters: [
      "name LIKE '_da%'",
      "name LIKE '%_%'",
      "name LIKE '___'",
      "name LIKE 'Zo_'",
      "name LIKE '_🙂'",
      "score LIKE '4%'",
      "birthday LIKE '1990%'",
      'name = true',
      'name = false',
      'name = 0',
      'addresses.main.zip = 2139',
      'addresses.main.zip > 1000',
      'addresses.main.zip = 1000',
      'addresses.main.zip = 5',
      'addresses.main.zip = 0.5',
      'addresses.main.zip < 0',
      'addresses.main.zip = 150',
      'birthday < updated_at',
      'addresses.main.city = addresses.invoice.city',
    ],
    defaultOrder: 'key',
    generatedKeys: false,
    uniqueConstraints: false,
    discovered: { Customer: { entitySet: 'Customers' }, Account: { entitySet: 'Accounts' }, addresses: { entitySet: 'Addresses' } },
  };
}
