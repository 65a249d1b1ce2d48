/**
 * The conformance suite's data: a CRM like the quickstart's (customers with typed addresses of type
 * main/invoice) plus accounts keyed by a string, and its System definition, which each connector's
 * target completes with its own options (a table, an entity set, a file). The rows are chosen to
 * trip up a translation that does not mean what the JS evaluator means: case variants, trailing
 * spaces, quotes and backslashes, LIKE wildcards in data, unicode and emoji, nulls and empty
 * strings, numbers spelled as text, booleans and dates.
 */
import type { SystemDefinition } from '../../../definitions/types.js';

export interface CustomerRow {
  id: number;
  name: string;
  email: string | null;
  active: boolean | null;
  score: number | null;
  balance: number | null;
  birthday: string | null;
  updated_at: string | null;
  notes: string | null;
  meta: unknown;
}

const SPECIAL_NAMES = [
  'Ada Lovelace',
  'ada lovelace',
  'ADA LOVELACE',
  'Ada',
  'Ada ',
  ' Ada',
  "O'Brien",
  'Say "hi"',
  'back\\slash',
  '100% sure',
  'under_score',
  'Zoë',
  'Łukasz Żółć',
  '日本語',
  'Smile 🙂',
  '🙂',
  'true',
  'False',
  '0',
  'Grace Hopper',
  'alan turing',
  'Barbara Liskov',
  'edsger',
  'Katherine',
  'b',
  'B',
  'M',
  'm',
  'a🙂',
  'star*',
  'what?',
  '[a-z] set',
];

function customer(id: number, name: string): CustomerRow {
  const n = id * 7919;
  const day = String((n % 28) + 1).padStart(2, '0');
  const month = String((n % 12) + 1).padStart(2, '0');
  return {
    id,
    name,
    email: id % 9 === 0 ? null : id % 11 === 0 ? '' : `${name.replace(/[^A-Za-z]/g, '').slice(0, 8) || 'x'}${id}@Example.com`,
    active: id % 7 === 0 ? null : id % 3 !== 0,
    score: id % 8 === 0 ? null : n % 100,
    balance: id % 10 === 0 ? null : (n % 1000) / 4 - 50,
    birthday: id % 6 === 0 ? null : `19${String(50 + (n % 50))}-${month}-${day}`,
    updated_at:
      id % 13 === 0
        ? null
        : `2024-${month}-${day}T${String(n % 24).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}:07.${String(n % 1000).padStart(3, '0')}Z`,
    notes: id % 4 === 0 ? null : `note ${id}`,
    meta: id % 5 === 0 ? null : { tier: id % 3, tags: ['a', String(id)] },
  };
}

export const CUSTOMERS: readonly CustomerRow[] = [
  ...SPECIAL_NAMES.map((name, index) => customer(index + 1, name)),
  ...Array.from({ length: 8 }, (_, index) => customer(SPECIAL_NAMES.length + index + 1, `Customer ${index + 1}`)),
].map((row) => {
  if (row.id === 1) return { ...row, score: 42, balance: 42, birthday: '1990-05-17', updated_at: '2024-03-04T05:06:07.089Z' };
  // Scores of 1 and 0 compare equal to true and false.
  if (row.id === 2 || row.id === 4) return { ...row, score: row.id === 2 ? 1 : 0 };
  return row;
});

export interface AddressRow {
  customer_id: number;
  type: 'main' | 'invoice';
  street: string | null;
  city: string | null;
  zip: string | null;
  country: string | null;
}

const ZIPS = ['02139', ' 22202 ', '1e3', '+5', '.5', '5.', 'abc', '', 'SW1Y 4JH', '1000', '-7', '5e', 'e5', '1.5E+2'];
const CITIES = ['London', 'london', 'Cambridge', 'Arlington', "St John's", 'Zürich', null];

export const ADDRESSES: readonly AddressRow[] = CUSTOMERS.filter((row) => row.id % 4 !== 3).flatMap((row) => {
  const main: AddressRow = {
    customer_id: row.id,
    type: 'main',
    street: `${row.id} Main St`,
    city: CITIES[row.id % CITIES.length]!,
    zip: ZIPS[row.id % ZIPS.length]!,
    country: row.id % 2 ? 'GB' : 'US',
  };
  const invoice: AddressRow = {
    customer_id: row.id,
    type: 'invoice',
    street: `PO Box ${row.id}`,
    city: CITIES[(row.id + 3) % CITIES.length]!,
    zip: null,
    country: 'GB',
  };
  return row.id % 2 === 0 ? [main, invoice] : [main];
});

export const ACCOUNTS = [
  { AccountNumber: 'A-1', AccountName: 'First', Email: 'first@example.com' },
  { AccountNumber: 'a-1', AccountName: 'first lower', Email: 'lower@example.com' },
  { AccountNumber: "A-'2", AccountName: 'Quote', Email: null },
];

/** The connector options that tie the fixture's objects and group to one system. */
export interface CrmOptions {
  Customer: Record<string, unknown>;
  Account: Record<string, unknown>;
  addresses: Record<string, unknown>;
}

const customerFields = (generatedKeys: boolean) =>
  ({
    id: generatedKeys ? { type: 'Integer', readOnly: true } : { type: 'Integer' },
    name: { type: 'String', required: true, maxLength: 200 },
    email: { type: 'String' },
    active: { type: 'Boolean' },
    score: { type: 'Integer' },
    balance: { type: 'Number' },
    birthday: { type: 'Date' },
    updated_at: { type: 'DateTime' },
    notes: { type: 'String' },
    meta: { type: 'Json' },
  }) as const;

const addressFields = {
  street: { type: 'String' },
  city: { type: 'String' },
  zip: { type: 'String' },
  country: { type: 'String' },
} as const;

/**
 * The System definition of the fixture, as the loader would produce it. `generatedKeys`: the
 * system gives a new customer its id (so id is read-only); `typedGroups` false leaves out the
 * addresses group, for a connector without typed groups.
 */
export function crmDefinition(
  connector: string,
  connection: Record<string, unknown>,
  options: CrmOptions,
  settings: { generatedKeys?: boolean; typedGroups?: boolean } = {},
  overrides: Partial<SystemDefinition> = {},
): SystemDefinition {
  const { generatedKeys = true, typedGroups = true } = settings;
  const addresses = { ...options.addresses, types: ['main', 'invoice'], fields: addressFields };
  return structuredClone({
    kind: 'System',
    id: 'crm',
    connector,
    connection,
    objects: {
      Customer: {
        ...options.Customer,
        key: ['id'],
        fields: customerFields(generatedKeys),
        ...(typedGroups ? { groups: { addresses } } : {}),
      },
      ReadOnlyCustomer: { ...options.Customer, key: ['id'], readOnly: true, fields: customerFields(generatedKeys) },
      Account: {
        ...options.Account,
        key: ['AccountNumber'],
        fields: {
          AccountNumber: { type: 'String', required: true, maxLength: 40 },
          AccountName: { type: 'String', required: true, maxLength: 200 },
          Email: { type: 'String', maxLength: 200 },
        },
      },
    },
    queries: {},
    ...overrides,
  }) as SystemDefinition;
}
