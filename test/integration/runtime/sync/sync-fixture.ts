/**
 * The sync tests' world on one test database: a source system (customers, a query over them, a
 * table that a test drops mid-run) and a target system (accounts with typed address groups,
 * contacts without a unique email), the syncs and flows that move between them, written as YAML
 * and loaded as the runtime loads them, and a ConnectionPool over them.
 */
import type { Knex } from 'knex';
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import type { RunEnvironment } from '../../../../runtime/execution/process-run.js';
import type { TestDatabase } from '../../../support/databases.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';

export const customers = [
  { id: 1, name: 'Ada', email: 'ada@example.com', active: true, score: 10, city: 'Lisbon' },
  { id: 2, name: 'Bob', email: 'bob@example.com', active: true, score: 5, city: 'Porto' },
  { id: 3, name: 'Cy', email: 'cy@example.com', active: false, score: 7, city: 'Faro' },
  { id: 4, name: 'Di', email: 'di@example.com', active: true, score: 1, city: 'Braga' },
  { id: 5, name: 'Ed', email: 'ed@example.com', active: true, score: 8, city: 'Evora' },
];

export async function createTables(admin: Knex): Promise<void> {
  for (const table of ['account_addresses', 'accounts', 'contacts', 'customers', 'doomed']) await admin.schema.dropTableIfExists(table);
  const customerColumns = (table: Knex.CreateTableBuilder): void => {
    table.integer('id').primary();
    table.string('name', 100);
    table.string('email', 100);
    table.boolean('active');
    table.integer('score');
    table.string('city', 100);
  };
  await admin.schema.createTable('customers', customerColumns);
  await admin.schema.createTable('doomed', customerColumns);
  await admin.schema.createTable('accounts', (table) => {
    table.string('number', 40).primary();
    table.string('name', 100).notNullable();
    table.string('email', 100);
    table.integer('score');
    table.check('?? >= 0', ['score'], 'accounts_score_not_negative');
  });
  await admin.schema.createTable('account_addresses', (table) => {
    table.string('account_number', 40).notNullable();
    table.string('type', 20).notNullable();
    table.string('city', 100);
    table.primary(['account_number', 'type']);
  });
  await admin.schema.createTable('contacts', (table) => {
    table.increments('id').primary();
    table.string('email', 100);
    table.string('name', 100);
  });
}

/** Empties every table and puts the five customers back. */
export async function resetData(admin: Knex): Promise<void> {
  for (const table of ['account_addresses', 'accounts', 'contacts', 'customers']) await admin(table).delete();
  await admin('customers').insert(customers);
}

function syncYaml(id: string, body: string): string {
  return `kind: Sync\nid: ${id}\n${body.trim()}\n`;
}

const accountMapping = `mapping: '{ "number": "C-" & $string(id), "name": name, "email": email, "score": score, "addresses": { "main": { "city": city } } }'`;

/** A statement each engine would run for minutes, stopped by the system `slow-src`'s one-second statement timeout. */
const minutesLong: Record<TestDatabase['engine'], string> = {
  sqlite: 'WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 10000000000) SELECT COUNT(*) AS id FROM r',
  postgres: 'SELECT 1 AS id FROM pg_sleep(600)',
  mariadb: "SELECT BENCHMARK(10000000000, MD5('x')) AS id",
};

export function definitionsYaml(database: TestDatabase): string {
  const connection = JSON.stringify(database.connection);
  const customerFields = `
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
      email: { type: String }
      active: { type: Boolean }
      score: { type: Integer }
      city: { type: String }`;
  const systems = `kind: System
id: src
connector: sql
connection: ${connection}
objects:
  Customer:
    table: customers${customerFields}
  Doomed:
    table: doomed${customerFields}
queries:
  activeCustomers:
    statement: "SELECT id, name, email, score FROM customers WHERE active = TRUE AND #FlowFilter# ORDER BY id"
    columns:
      - { name: id, type: Integer }
      - { name: name, type: String }
      - { name: email, type: String }
      - { name: score, type: Integer }
---
kind: System
id: slow-src
connector: sql
connection: ${connection}
limits: { statementTimeout: 1s }
queries:
  minutesLong:
    statement: "${minutesLong[database.engine]}"
    columns: [{ name: id, type: Integer }]
---
kind: System
id: tgt
connector: sql
connection: ${connection}
objects:
  Account:
    table: accounts
    key: [number]
    fields:
      number: { type: String }
      name: { type: String }
      email: { type: String }
      score: { type: Integer }
    groups:
      addresses:
        table: account_addresses
        foreignKey: account_number
        typeField: type
        types: [main, invoice]
        fields:
          city: { type: String }
  Contact:
    table: contacts
    key: [id]
    fields:
      id: { type: Integer, readOnly: true }
      email: { type: String }
      name: { type: String }
  Missing:
    table: no_such_table
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
`;
  const toAccounts = (extra: string, source = 'source: { system: src, object: Customer, where: "active = true", order: id asc }') => `
${source}
target: { system: tgt, object: Account }
${accountMapping}
${extra}`;
  const keyMatch = 'match: { where: "number = #number#", onNoMatch: create, onMatch: update }';
  const syncs = [
    syncYaml('accounts', toAccounts(`${keyMatch}\nbatchSize: 2`)),
    syncYaml('accounts-create-only', toAccounts('match: { where: "number = #number#", onNoMatch: create, onMatch: skip }')),
    syncYaml('accounts-update-only', toAccounts('match: { where: "number = #number#", onNoMatch: skip, onMatch: update }')),
    syncYaml('accounts-no-match', toAccounts('batchSize: 2')),
    syncYaml(
      'accounts-capped',
      toAccounts(`${keyMatch}\nmaxErrors: 2`).replace(accountMapping, `mapping: '$error("refused " & $string(id))'`),
    ),
    syncYaml(
      'accounts-some-fail',
      toAccounts(`${keyMatch}\nbatchSize: 2`).replace(
        accountMapping,
        `mapping: 'id = 2 or id = 4 ? $error("no account for " & $string(id)) : { "number": "C-" & $string(id), "name": name }'`,
      ),
    ),
    syncYaml(
      'accounts-params',
      `source: { system: src, object: Customer, where: "name <> #params.Exclude#" }
target: { system: tgt, object: Account }
precondition: "score >= #params.MinScore#"
mapping: '{ "number": $params.Prefix & $string(id), "name": name & " " & $params.Suffix }'
match: { where: "number = #number#" }`,
    ),
    syncYaml(
      'accounts-from-query',
      toAccounts(keyMatch, 'source: { system: src, query: activeCustomers }').replace(
        accountMapping,
        `mapping: '{ "number": "Q-" & $string(id), "name": name, "score": score }'`,
      ),
    ),
    syncYaml(
      'accounts-from-slow-query',
      toAccounts(keyMatch, 'source: { system: slow-src, query: minutesLong }').replace(
        accountMapping,
        `mapping: '{ "number": "L-" & $string(id), "name": "slow" }'`,
      ),
    ),
    syncYaml('accounts-from-doomed', toAccounts(`${keyMatch}\nbatchSize: 2`, 'source: { system: src, object: Doomed, order: id asc }')),
    syncYaml(
      'accounts-from-store',
      `source: { recordStore: true }\ntarget: { system: tgt, object: Account }\nmapping: '{ "number": "S-" & $string(id), "name": name }'\n${keyMatch}`,
    ),
    syncYaml(
      'to-missing',
      `source: { system: src, object: Customer }\ntarget: { system: tgt, object: Missing }\nmapping: '{ "id": id, "name": name }'`,
    ),
    ...(['fail', 'updateFirst', 'updateAll', 'skip'] as const).map((rule) =>
      syncYaml(
        `contacts-${rule}`,
        `source: { system: src, object: Customer, where: "id <= 2" }\ntarget: { system: tgt, object: Contact }\nmapping: '{ "email": email, "name": name }'\nmatch: { where: "email = #email#", onMultipleMatches: ${rule} }`,
      ),
    ),
    syncYaml(
      'accounts-bad-values',
      toAccounts(`${keyMatch}\nbatchSize: 2`).replace(
        accountMapping,
        `mapping: '{ "number": "C-" & $string(id), "name": name, "score": id = 4 ? "lots" : score }'`,
      ),
    ),
    // Two source records per match value, on different pages: the second updates what the first creates.
    syncYaml(
      'accounts-pairs',
      toAccounts(`${keyMatch}\nbatchSize: 2`).replace(
        accountMapping,
        `mapping: '{ "number": "P-" & (id % 2 = 0 ? "even" : "odd"), "name": name, "score": score }'`,
      ),
    ),
    syncYaml(
      'contacts-pairs-searched',
      `source: { system: src, object: Customer, where: "active = true", order: id asc }\ntarget: { system: tgt, object: Contact }\nmapping: '{ "email": (id % 2 = 0 ? "Even" : "Odd") & "@example.com", "name": name }'\nmatch: { where: "tolower(email) = tolower(#email#)" }\nbatchSize: 2`,
    ),
    // A target without groups, matched by a batched equality: its writes leave unchanged records themselves.
    syncYaml(
      'contacts-by-email',
      `source: { system: src, object: Customer, order: id asc }\ntarget: { system: tgt, object: Contact }\nmapping: '{ "email": email, "name": name }'\nmatch: { where: "email = #email#" }\nbatchSize: 2`,
    ),
    syncYaml(
      'contacts-searched',
      `source: { system: src, object: Customer, where: "id <= 2" }\ntarget: { system: tgt, object: Contact }\nmapping: '{ "email": email, "name": name }'\nmatch: { where: "tolower(email) = tolower(#email#)" }`,
    ),
  ];
  const flows = `kind: Flow
id: store-flow
steps:
  - { sync: accounts-from-store }
---
kind: Flow
id: store-flow-failing
steps:
  - { sync: accounts-from-store }
  - { sync: to-missing, name: broken }
---
kind: Flow
id: store-flow-tolerant
steps:
  - { sync: accounts-from-store }
  - { sync: to-missing, continueOnError: true }
`;
  return [systems, ...syncs, flows].join('---\n');
}

export interface SyncWorld {
  environment: RunEnvironment;
  close(): Promise<void>;
}

export async function syncWorld(database: TestDatabase, db: RuntimeDatabase): Promise<SyncWorld> {
  const snapshot = await definitionsSnapshot(definitionsYaml(database));
  const connections = new ConnectionPool({ baseDirectory: database.baseDirectory });
  return { environment: { snapshot, connections, db }, close: () => connections.closeAll() };
}
