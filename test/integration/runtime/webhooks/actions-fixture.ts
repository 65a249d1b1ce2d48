/**
 * The webhook action tests' world on one test database: the sync tests' systems, syncs and flows
 * (test/integration/runtime/sync/sync-fixture.ts) plus syncs offered to webhooks and one webhook per action and
 * setting, written as YAML and loaded as the runtime loads them; and `call`, which builds a WebhookCall for
 * runWebhookAction the way the endpoint would.
 */
import { ConnectionPool } from '../../../../connectors/connection-pool.js';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import { createLogger } from '../../../../runtime/log.js';
import { runWebhookAction } from '../../../../runtime/webhooks/actions/index.js';
import { createTicker, type Ticker } from '../../../../runtime/webhooks/ticker.js';
import type { WebhookAnswer, WebhookCall } from '../../../../runtime/webhooks/webhook-call.js';
import { after, before, beforeEach } from 'node:test';
import { createTables, definitionsYaml, resetData } from '../sync/sync-fixture.js';
import type { TestDatabase } from '../../../support/databases.js';
import { definitionsSnapshot } from '../../../support/definitions-snapshot.js';

const accountMapping = `'{ "number": "C-" & $string(id), "name": name, "email": email, "score": score, "addresses": { "main": { "city": city } } }'`;

const syncs = `
kind: Sync
id: hook-read
source: { system: src, object: Customer, where: "active = true", order: id asc }
target: { system: tgt, object: Account }
mapping: '{ "number": "C-" & $string(id), "name": name, "city": city, "tag": $params.tag }'
webhookTypes: [read]
---
kind: Sync
id: hook-read-query
source: { system: src, query: activeCustomers }
target: { system: tgt, object: Account }
precondition: "score > 1"
mapping: '{ "number": "Q-" & $string(id), "name": name, "score": score }'
webhookTypes: [readQuery]
---
kind: Sync
id: hook-save
source: { system: src, object: Customer, where: "active = true" }
target: { system: tgt, object: Account }
precondition: "score >= 0"
mapping: ${accountMapping}
match: { where: "number = #number#", onNoMatch: create, onMatch: update }
webhookTypes: [write]
`;

const hook = (id: string, body: string) => `kind: Webhook\nid: ${id}\n${body.trim()}\n`;

export const ids = {
  startParams: 'start-params-0000000001',
  startStore: 'start-store-00000000001',
  startFlow: 'start-flow-000000000001',
  readSync: 'read-sync-0000000000001',
  readSyncFirst: 'read-sync-first-0000001',
  readQuerySync: 'read-query-sync-0000001',
  readQuerySyncFirst: 'read-query-sync-first-1',
  saveSync: 'save-sync-0000000000001',
  saveSyncResult: 'save-sync-result-000001',
  readSystem: 'read-system-00000000001',
  readSystemFirst: 'read-system-first-00001',
  readSystemObject: 'read-system-object-0001',
  readQuerySystem: 'read-query-system-00001',
  readQuerySystemPaged: 'read-query-paged-000001',
  readQuerySystemNamed: 'read-query-named-000001',
  readQuerySystemOptional: 'read-query-optional-001',
  saveSystem: 'save-system-00000000001',
  saveSystemSkip: 'save-system-skip-000001',
  saveSystemAccount: 'save-system-account-001',
  saveSystemById: 'save-system-by-id-00001',
} as const;

const webhooks = [
  hook(ids.startParams, 'action: startSync\nsync: accounts'),
  hook(ids.startStore, 'action: startSync\nsync: accounts-from-store\nrecordStore: true'),
  hook(ids.startFlow, 'action: startSync\nflow: store-flow'),
  hook(ids.readSync, `action: readWithSync\nsync: hook-read\nsearch: "city = #city# OR score >= #minScore#"\norder: score desc`),
  hook(ids.readSyncFirst, `action: readWithSync\nsync: hook-read\nfirstOnly: true\norder: score desc`),
  hook(ids.readQuerySync, `action: readQueryWithSync\nsync: hook-read-query\nqueryFilter: "name <> #exclude#"\norder: score desc`),
  hook(ids.readQuerySyncFirst, `action: readQueryWithSync\nsync: hook-read-query\nqueryFilter: "name = #name#"\nfirstOnly: true`),
  hook(ids.saveSync, 'action: saveWithSync\nsync: hook-save'),
  hook(ids.saveSyncResult, `action: saveWithSync\nsync: hook-save\nresultMapping: '{ "number": number, "name": name }'`),
  hook(
    ids.readSystem,
    `action: readWithSystem
system: src
object: Customer
search: "email = #email#"
order: id asc
requestSchema: { type: object, properties: { email: { type: string } } }
responseSchema: { type: array }
readMapping: '{ "id": id, "name": name }'`,
  ),
  hook(
    ids.readSystemFirst,
    `action: readWithSystem\nsystem: src\nobject: Customer\nsearch: "active = true"\norder: score desc\nfirstOnly: true\nresponseSchema: { type: object }`,
  ),
  hook(
    ids.readSystemObject,
    `action: readWithSystem\nsystem: src\nobject: Customer\nsearch: "id = #id#"\nresponseSchema: { type: object }`,
  ),
  hook(
    ids.readQuerySystem,
    `action: readQueryWithSystem\nsystem: src\nquery: activeCustomers\nqueryFilter: "score >= #minScore#"\nreadMapping: '{ "who": name }'`,
  ),
  hook(
    ids.readQuerySystemPaged,
    `action: readQueryWithSystem\nsystem: src\nquery: activeCustomers\nqueryFilter: "score >= #minScore#"\npaging: {}`,
  ),
  hook(
    ids.readQuerySystemNamed,
    `action: readQueryWithSystem\nsystem: src\nquery: activeCustomers\npaging: { pageSizeParam: size, offsetParam: start, defaultPageSize: 2, maxPageSize: 3 }`,
  ),
  hook(
    ids.readQuerySystemOptional,
    `action: readQueryWithSystem\nsystem: src\nquery: activeCustomers\nqueryFilter: "score >= #minScore#"\npaging: { filterParam: where }`,
  ),
  hook(
    ids.saveSystem,
    `action: saveWithSystem
system: tgt
object: Contact
writeMapping: '{ "email": email, "name": name }'
targetSearch: "email = #email#"
onNoMatch: create
onMatch: update
resultMapping: '{ "id": id, "name": name, "action": $action }'`,
  ),
  hook(
    ids.saveSystemSkip,
    `action: saveWithSystem\nsystem: tgt\nobject: Contact\ntargetSearch: "email = #email#"\nonNoMatch: skip\nonMatch: skip\nresultMapping: '{ "id": id }'`,
  ),
  hook(ids.saveSystemAccount, `action: saveWithSystem\nsystem: tgt\nobject: Account`),
  hook(
    ids.saveSystemById,
    `action: saveWithSystem\nsystem: tgt\nobject: Contact\nwriteMapping: '{ "email": email, "name": name }'\ntargetSearch: "id = #id#"\nresultMapping: '{ "id": id, "name": name, "action": $action }'`,
  ),
];

export interface ActionWorld {
  snapshot: Snapshot;
  connections: ConnectionPool;
  /** Runs the webhook's action on `data` (and `query`), as the endpoint would after its checks. */
  call(
    id: string,
    data: unknown,
    options?: { query?: Record<string, string | string[]>; method?: string },
  ): Promise<{ answer: WebhookAnswer; ticker: Ticker }>;
  /** Like `call`, but answers the thrown error (and the ticker), failing when there is none. */
  refused(
    id: string,
    data: unknown,
    options?: { query?: Record<string, string | string[]> },
  ): Promise<{ error: Error & { status?: number; code?: string; extra?: { errors?: unknown[] } }; ticker: Ticker }>;
  close(): Promise<void>;
}

export async function actionWorld(database: TestDatabase, db: RuntimeDatabase): Promise<ActionWorld> {
  const snapshot = await definitionsSnapshot([definitionsYaml(database), syncs.trim(), ...webhooks].join('\n---\n'));
  const connections = new ConnectionPool({ baseDirectory: database.baseDirectory });
  const log = createLogger('silent');
  let calls = 0;
  const build = (id: string, data: unknown, options: { query?: Record<string, string | string[]>; method?: string } = {}): WebhookCall => {
    const entry = snapshot.webhooks.get(id);
    if (entry === undefined) throw new Error(`no webhook ${id} in the test definitions`);
    const rawBody = Buffer.from(options.method === 'GET' ? '' : JSON.stringify(data ?? null));
    return {
      entry,
      snapshot,
      connections,
      db,
      log,
      ticker: createTicker(`test-call-${++calls}`),
      request: {
        method: options.method ?? 'POST',
        data,
        query: options.query ?? {},
        headers: { 'content-type': 'application/json' },
        rawBody,
      },
    };
  };
  return {
    snapshot,
    connections,
    async call(id, data, options) {
      const call = build(id, data, options);
      const answer = await runWebhookAction(call);
      // As the endpoint sends it: JSONata results carry null prototypes and sequence flags.
      return {
        answer: answer.body === undefined ? answer : { ...answer, body: JSON.parse(JSON.stringify(answer.body)) as unknown },
        ticker: call.ticker,
      };
    },
    async refused(id, data, options) {
      const call = build(id, data, options);
      try {
        await runWebhookAction(call);
      } catch (error) {
        return { error: error as Error, ticker: call.ticker };
      }
      throw new Error(`webhook ${id} was expected to refuse ${JSON.stringify(data)}`);
    },
    close: () => connections.closeAll(),
  };
}

/**
 * Registers, in the current suite, what every action suite needs: the tables, the world built
 * once, and the rows reset before each test. Answers the world (valid inside tests and hooks).
 */
export function useActionWorld(runtime: () => RuntimeDatabase, database: () => TestDatabase): () => ActionWorld {
  let world: ActionWorld | undefined;
  before(async () => {
    await createTables(database().admin);
    world = await actionWorld(database(), runtime());
  });
  after(async () => {
    await world?.close();
  });
  beforeEach(async () => {
    await resetData(database().admin);
  });
  return () => {
    if (world === undefined) throw new Error('the action world was not built');
    return world;
  };
}
