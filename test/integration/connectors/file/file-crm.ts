/**
 * The conformance fixture as files, one target per format: CUSTOMERS with their ADDRESSES as typed
 * groups (CSV columns `addresses.main.city`, nested objects in JSON and NDJSON) and ACCOUNTS, written
 * into a fresh temporary directory with csv-stringify and JSON.stringify — never through the
 * connector — and counted the same way, by parsing the files.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import * as fileConnector from '../../../../connectors/file/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import type { ConformanceTarget } from '../conformance.js';
import { ACCOUNTS, ADDRESSES, CUSTOMERS, crmDefinition, type CustomerRow } from '../crm-fixture.js';

export type Format = 'csv' | 'json' | 'ndjson';

const CUSTOMER_FIELDS = ['id', 'name', 'email', 'active', 'score', 'balance', 'birthday', 'updated_at', 'notes', 'meta'] as const;
const ADDRESS_FIELDS = ['street', 'city', 'zip', 'country'] as const;
const TYPES = ['main', 'invoice'] as const;

/** A record of the fixture as records carry it: fields, and the addresses by type. */
export function customerRecord(row: CustomerRow): Record<string, unknown> {
  const addresses: Record<string, unknown> = {};
  for (const address of ADDRESSES.filter((candidate) => candidate.customer_id === row.id)) {
    addresses[address.type] = Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, address[field]]));
  }
  return { ...row, addresses };
}

/** A value as a CSV cell: text, or null for an empty unquoted cell. */
export function cell(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows as CSV text, exactly the empty strings quoted. */
export function csvText(rows: ReadonlyArray<ReadonlyArray<string | null>>, delimiter = ','): string {
  return stringify(rows as Array<Array<string | null>>, { quoted_match: /^$/, delimiter });
}

function customerCsv(): string {
  const header = [...CUSTOMER_FIELDS, ...TYPES.flatMap((type) => ADDRESS_FIELDS.map((field) => `addresses.${type}.${field}`))];
  const rows = CUSTOMERS.map((row) => {
    const record = customerRecord(row);
    const addresses = record.addresses as Record<string, Record<string, unknown> | undefined>;
    return [
      ...CUSTOMER_FIELDS.map((field) => cell(row[field])),
      ...TYPES.flatMap((type) => ADDRESS_FIELDS.map((field) => cell(addresses[type]?.[field]))),
    ];
  });
  return csvText([header, ...rows]);
}

function write(directory: string, format: Format): void {
  const customers = CUSTOMERS.map(customerRecord);
  if (format === 'csv') {
    writeFileSync(join(directory, 'customers.csv'), customerCsv());
    const header = ['AccountNumber', 'AccountName', 'Email'] as const;
    writeFileSync(
      join(directory, 'accounts.csv'),
      csvText([[...header], ...ACCOUNTS.map((account) => header.map((name) => cell(account[name])))]),
    );
  } else if (format === 'json') {
    writeFileSync(join(directory, 'customers.json'), JSON.stringify(customers, null, 2));
    writeFileSync(join(directory, 'accounts.json'), JSON.stringify(ACCOUNTS, null, 2));
  } else {
    writeFileSync(join(directory, 'customers.ndjson'), customers.map((record) => `${JSON.stringify(record)}\n`).join(''));
    writeFileSync(join(directory, 'accounts.ndjson'), ACCOUNTS.map((record) => `${JSON.stringify(record)}\n`).join(''));
  }
}

/** The records of a file, parsed without the connector: objects for JSON formats, rows of cells with a header for CSV. */
export function parseFile(path: string, format: Format): Array<Record<string, unknown>> {
  const text = readFileSync(path, 'utf8');
  if (format === 'json') return JSON.parse(text) as Array<Record<string, unknown>>;
  if (format === 'ndjson')
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return parse(text, { columns: true, cast: (value, context) => (value === '' && !context.quoting ? null : value) }) as Array<
    Record<string, unknown>
  >;
}

function addressCount(records: ReadonlyArray<Record<string, unknown>>, format: Format): number {
  let count = 0;
  for (const record of records) {
    for (const type of TYPES) {
      if (format === 'csv') {
        if (
          ADDRESS_FIELDS.some(
            (field) => record[`addresses.${type}.${field}`] !== null && record[`addresses.${type}.${field}`] !== undefined,
          )
        )
          count += 1;
      } else if ((record.addresses as Record<string, unknown> | undefined)?.[type] !== undefined) count += 1;
    }
  }
  return count;
}

/** The System definition of the fixture in `format` files under the directory `data`. */
export function fileCrmSystem(format: Format, overrides: Partial<SystemDefinition> = {}): SystemDefinition {
  return crmDefinition(
    'file',
    { directory: 'data' },
    { Customer: { path: `customers.${format}` }, Account: { path: `accounts.${format}` }, addresses: {} },
    {},
    overrides,
  );
}

/** The shared suite's view of a fresh directory of `format` files. */
export function fileTarget(format: Format): ConformanceTarget {
  const base = mkdtempSync(join(tmpdir(), `syncline-file-${format}-`));
  const data = join(base, 'data');
  after(() => rmSync(base, { recursive: true, force: true }));
  return {
    module: fileConnector,
    create: async () => {
      mkdirSync(data, { recursive: true });
      write(data, format);
    },
    system: (overrides) => fileCrmSystem(format, overrides),
    unreachable: () => fileCrmSystem(format, { connection: { directory: 'missing' } }),
    baseDirectory: () => base,
    counts: async () => {
      const customers = parseFile(join(data, `customers.${format}`), format);
      return {
        Customer: customers.length,
        Account: parseFile(join(data, `accounts.${format}`), format).length,
        addresses: addressCount(customers, format),
      };
    },
    // The records are selected in memory by the evaluator itself: every filter has its answer.
    unsupportedFilters: [],
    defaultOrder: 'insertion',
    // A create without an id gets the largest plus one, under the file's lock.
    generatedKeys: true,
    uniqueConstraints: false,
    discovered: { Customer: { path: `customers.${format}`, format }, Account: { path: `accounts.${format}`, format } },
  };
}
