/**
 * What the tests of the webhook and sync case runners share: the definitions they run against (the
 * quickstart, and test/fixtures/scratch-systems, whose systems point where nothing answers), cases
 * built in code the way the test-file loader would build them, and a `Locate` that hands out a
 * distinct position per path — so a test can tell from a failure's `at` which expectation failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConnectorSpecs } from '../../../../connectors/index.js';
import { loadDefinitions } from '../../../../definitions/load-definitions.js';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import type {
  CaseFailure,
  CaseOutcome,
  Locate,
  SyncCase,
  TestCase,
  TestPosition,
  WebhookCase,
} from '../../../../runtime/testing/test-case.js';

export const quickstartDirectory = 'examples/quickstart';
export const fixtureDirectory = 'test/fixtures/scratch-systems';

export async function loadSnapshot(directory: string): Promise<Snapshot> {
  const loaded = await loadDefinitions([directory], { connectors: await loadConnectorSpecs() });
  if (!loaded.ok) throw new Error(`${directory} does not load: ${loaded.problems.map((problem) => problem.message).join('; ')}`);
  return loaded.snapshot;
}

/** A Locate whose positions name their path: `pathAt(failure.at)` → `expect.systems.erp.Account.0`. */
export interface PathLocator {
  at: Locate;
  pathAt(position: TestPosition): string;
}

export function pathLocator(): PathLocator {
  const lines = new Map<string, number>();
  const paths: string[] = [];
  return {
    at(path) {
      const text = path.join('.');
      let line = lines.get(text);
      if (line === undefined) {
        paths.push(text);
        line = paths.length;
        lines.set(text, line);
      }
      return { line, column: 1 };
    },
    pathAt: (position) => paths[position.line - 1] ?? `(no path at line ${position.line})`,
  };
}

type Built<C extends TestCase> = C & { pathAt(position: TestPosition): string };

export function webhookCase(fields: Omit<WebhookCase, 'kind' | 'file' | 'at' | 'name'>): Built<WebhookCase> {
  const { at, pathAt } = pathLocator();
  return { kind: 'webhook', name: `webhook ${fields.webhook}`, file: 'cases.test.yaml', at, pathAt, ...fields };
}

export function syncCase(fields: Omit<SyncCase, 'kind' | 'file' | 'at' | 'name'>): Built<SyncCase> {
  const { at, pathAt } = pathLocator();
  return { kind: 'sync', name: `sync ${fields.sync}`, file: 'cases.test.yaml', at, pathAt, ...fields };
}

/** Runs a case in a scratch directory of its own, removed afterwards (as the command does). */
export async function run<C extends TestCase>(
  runner: (testCase: C, context: { snapshot: Snapshot; scratchDirectory: string }) => Promise<CaseOutcome>,
  snapshot: Snapshot,
  testCase: C,
): Promise<CaseOutcome> {
  const scratchDirectory = mkdtempSync(join(tmpdir(), 'syncline-case-'));
  try {
    return await runner(testCase, { snapshot, scratchDirectory });
  } finally {
    rmSync(scratchDirectory, { recursive: true, force: true });
  }
}

/** Each failure as `path: message`, for an assertion that shows what went wrong when it fails. */
export function failuresOf(outcome: CaseOutcome, testCase: { pathAt(position: TestPosition): string }): string[] {
  return outcome.failures.map((failure: CaseFailure) => `${testCase.pathAt(failure.at)}: ${failure.message}`);
}

/** The paths of the failures alone. */
export function failedPaths(outcome: CaseOutcome, testCase: { pathAt(position: TestPosition): string }): string[] {
  return outcome.failures.map((failure) => testCase.pathAt(failure.at));
}
