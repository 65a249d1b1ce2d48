/**
 * Runs the cases of test files, one after another, each on its own: a fresh scratch directory
 * (removed after, whatever happened), its runner taken from the table by the case's kind. A
 * runner that throws fails its case with the reason, and the next case runs; no case sees what
 * another left behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { CaseRunners } from './case-runners.js';
import type { TestSuite } from './load-test-files.js';
import type { CaseOutcome, CaseRunner, TestCase } from './test-case.js';

export interface CaseResult {
  testCase: TestCase;
  outcome: CaseOutcome;
  durationMs: number;
}

export interface SuiteResult {
  suite: TestSuite;
  results: CaseResult[];
}

export interface RunOptions {
  runners: CaseRunners;
  signal?: AbortSignal;
  /** Told of each case as it ends (a report that shows progress). */
  onCase?: (result: CaseResult, suite: TestSuite) => void;
}

/** Every case of `suites` against `snapshot`, in file order. */
export async function runSuites(suites: readonly TestSuite[], snapshot: Snapshot, options: RunOptions): Promise<SuiteResult[]> {
  const out: SuiteResult[] = [];
  for (const suite of suites) {
    const results: CaseResult[] = [];
    for (const testCase of suite.cases) {
      const result = await runCase(testCase, snapshot, options);
      results.push(result);
      options.onCase?.(result, suite);
    }
    out.push({ suite, results });
  }
  return out;
}

export async function runCase(testCase: TestCase, snapshot: Snapshot, options: RunOptions): Promise<CaseResult> {
  const started = performance.now();
  const runner = options.runners[testCase.kind] as CaseRunner<TestCase> | undefined;
  if (runner === undefined) {
    const outcome = {
      failures: [{ message: `${testCase.kind} cases are not supported yet by this version of syncline`, at: testCase.at([testCase.kind]) }],
    };
    return { testCase, outcome, durationMs: performance.now() - started };
  }
  const scratchDirectory = await mkdtemp(join(tmpdir(), 'syncline-test-'));
  let outcome: CaseOutcome;
  try {
    outcome = await runner(testCase, { snapshot, scratchDirectory, ...(options.signal === undefined ? {} : { signal: options.signal }) });
  } catch (error) {
    outcome = { failures: [{ message: `the case could not run: ${(error as Error)?.message ?? String(error)}`, at: testCase.at([]) }] };
  } finally {
    await rm(scratchDirectory, { recursive: true, force: true });
  }
  return { testCase, outcome, durationMs: performance.now() - started };
}

/** Cases run, passed and failed. */
export function countResults(suites: readonly SuiteResult[]): { cases: number; passed: number; failed: number } {
  const all = suites.flatMap((suite) => suite.results);
  const failed = all.filter((result) => result.outcome.failures.length > 0).length;
  return { cases: all.length, passed: all.length - failed, failed };
}
