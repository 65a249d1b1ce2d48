/**
 * `syncline test --format json`: the run as data, for scripts and CI annotations. The shape is
 * stable (docs/testing.md#json):
 *
 *   { passed, summary: {cases, passed, failed, durationMs},
 *     files: [{file, name, cases: [{name, kind, target, line, column, passed, durationMs,
 *                                   failures: [{message, line, column, expected?, actual?}], ticker?}]}],
 *     problems: [{file, line, column, kind?, id?, code, message, severity}] }
 *
 * With problems (exit 2) no case ran: `files` is empty and `problems` says why.
 */
import { problemJson, type Problem } from '../../../definitions/problem.js';
import { countResults, type CaseResult, type SuiteResult } from '../../testing/run-tests.js';
import type { TestCase } from '../../testing/test-case.js';

export function jsonReport(suites: readonly SuiteResult[], durationMs: number, problems: readonly Problem[]): string {
  const counts = countResults(suites);
  const body = {
    passed: problems.length === 0 && counts.failed === 0,
    summary: { ...counts, durationMs: rounded(durationMs) },
    files: suites.map(({ suite, results }) => ({ file: suite.file, name: suite.name, cases: results.map(caseJson) })),
    problems: problems.map(problemJson),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

function caseJson(result: CaseResult): Record<string, unknown> {
  const { testCase, outcome } = result;
  const at = testCase.at([]);
  return {
    name: testCase.name,
    kind: testCase.kind,
    target: targetOf(testCase),
    line: at.line,
    column: at.column,
    passed: outcome.failures.length === 0,
    durationMs: rounded(result.durationMs),
    failures: outcome.failures.map((failure) => ({
      message: failure.message,
      line: failure.at.line,
      column: failure.at.column,
      ...(failure.expected === undefined ? {} : { expected: failure.expected }),
      ...(failure.actual === undefined ? {} : { actual: failure.actual }),
    })),
    ...(outcome.ticker === undefined ? {} : { ticker: outcome.ticker }),
  };
}

/** The sync or webhook the case tests. */
export function targetOf(testCase: TestCase): string {
  return testCase.kind === 'condition' || testCase.kind === 'webhook' ? testCase.webhook : testCase.sync;
}

function rounded(ms: number): number {
  return Math.round(ms * 10) / 10;
}
