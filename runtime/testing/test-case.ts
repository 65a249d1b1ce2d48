/**
 * The cases of a test file (`*.test.yaml`, kind Test) as `syncline test` runs them. A case is
 * named by the key that says what it tests — `mapping`, `filter`, `condition`, `webhook` or
 * `sync` — and each kind has a runner of its own (runtime/testing/cases/). Every runner answers a
 * CaseOutcome: no failures means the case passed.
 *
 * A file's documents look like:
 *
 *   kind: Test
 *   id: contacts
 *   cases:
 *     - name: maps a contact with its main address
 *       mapping: contacts-to-crm            # the sync whose mapping runs
 *       input: { FirstName: Ada }
 *       params: { Country: DE }             # ActionParams, as $params
 *       output: { name: Ada }               # or `error: text the failure contains`
 *     - name: only active contacts are synced
 *       filter: contacts-to-crm             # the sync's where (and precondition)
 *       record: { Active: false }
 *       params: { Country: DE }
 *       expect: false
 *     - name: the webhook's condition refuses drafts
 *       condition: order-created            # the webhook's condition
 *       request: { query: { status: draft } }
 *       expect: false
 *     - name: an order call creates the order
 *       webhook: order-created
 *       request: { method: POST, headers: {}, query: {}, body: {} }
 *       systems: { crm: { orders: [] } }    # fixture rows before the call, per system and object
 *       expect:
 *         status: 201
 *         body: {}                          # compared as described in docs/testing.md
 *         ticker: [ ... ]                   # lines, in order
 *         systems: { crm: { orders: [ ... ] } }
 *     - name: a first run creates every contact
 *       sync: contacts-to-crm
 *       params: {}
 *       where: "Active = true"              # a WhereClause, as a start gives it
 *       systems: { erp: { contacts: [ ... ] }, crm: { contacts: [] } }
 *       expect:
 *         statistics: { read: 2, created: 2 }
 *         errors: [ ... ]
 *         systems: { crm: { contacts: [ ... ] } }
 */
import type { RecordData } from '../../connectors/connection.js';
import type { Snapshot } from '../../definitions/snapshot.js';

/** A place in the test file, 1-based as editors show it. */
export interface TestPosition {
  line: number;
  column: number;
}

/** Finds where a part of a case was written: `at(['expect', 'systems', 'crm'])`; the case itself for []. */
export type Locate = (path: readonly (string | number)[]) => TestPosition;

/** Fixture rows: system id → object name → rows. */
export type SystemRows = Record<string, Record<string, RecordData[]>>;

interface CaseBase {
  name: string;
  /** The test file, as the user named it. */
  file: string;
  at: Locate;
}

export interface MappingCase extends CaseBase {
  kind: 'mapping';
  /** The sync whose mapping runs. */
  sync: string;
  input: RecordData;
  params?: Record<string, unknown>;
  output?: RecordData;
  /** Text the mapping's error must contain; the case expects a failure instead of an output. */
  error?: string;
  /** Paths of `output` left out of the comparison (`SyncedAt`, `lines[0].at`): values such as $now(). */
  ignore?: string[];
}

export interface FilterCase extends CaseBase {
  kind: 'filter';
  sync: string;
  record: RecordData;
  params?: Record<string, unknown>;
  expect: boolean;
}

export interface ConditionCase extends CaseBase {
  kind: 'condition';
  webhook: string;
  request: TestRequest;
  expect: boolean;
}

export interface TestRequest {
  method?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: unknown;
}

export interface WebhookCase extends CaseBase {
  kind: 'webhook';
  webhook: string;
  request: TestRequest;
  systems?: SystemRows;
  expect: {
    status?: number;
    body?: unknown;
    ticker?: string[];
    systems?: SystemRows;
  };
}

export interface SyncCase extends CaseBase {
  kind: 'sync';
  sync: string;
  params?: Record<string, unknown>;
  where?: string;
  systems?: SystemRows;
  expect: {
    statistics?: Partial<Record<'read' | 'created' | 'updated' | 'skipped' | 'failed', number>>;
    errors?: Array<{ sourceId?: string; message: string }>;
    systems?: SystemRows;
  };
}

export type TestCase = MappingCase | FilterCase | ConditionCase | WebhookCase | SyncCase;

/** One way a case did not hold, at the place in the test file that states the expectation. */
export interface CaseFailure {
  message: string;
  at: TestPosition;
  expected?: unknown;
  actual?: unknown;
}

export interface CaseOutcome {
  failures: CaseFailure[];
  /** Ticker lines the case produced (webhook cases), shown with a failure. */
  ticker?: string[];
}

/** What every runner gets: the definitions under test and a directory of its own to scribble in. */
export interface CaseContext {
  snapshot: Snapshot;
  /** Empty, removed after the case; scratch databases go here. */
  scratchDirectory: string;
  signal?: AbortSignal;
}

export type CaseRunner<C extends TestCase> = (testCase: C, context: CaseContext) => Promise<CaseOutcome>;
