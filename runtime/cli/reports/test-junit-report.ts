/**
 * `syncline test --format junit`: JUnit XML for CI test reporters, one suite per test file and
 * one test case per case; a failed case carries its failures as `file:line:col: message` lines
 * with their diffs. Problems that kept the cases from running (exit 2) are failures too, one per
 * problem under its file, so a CI report says why nothing ran.
 */
import { formatProblem, type Problem } from '../../../definitions/problem.js';
import type { SuiteResult } from '../../testing/run-tests.js';
import { formatDiff, valueDiff } from '../../testing/value-diff.js';
import { junitXml, type JunitCase, type JunitSuite } from './junit-xml.js';
import { distinctComparisons, location } from './test-text-report.js';

export function junitReport(suites: readonly SuiteResult[], problems: readonly Problem[]): string {
  const junitSuites: JunitSuite[] = suites.map(({ suite, results }) => ({
    name: suite.name,
    file: suite.file,
    cases: results.map(({ testCase, outcome, durationMs }): JunitCase => {
      const base = { name: testCase.name, classname: suite.file, time: durationMs / 1000 };
      const [first] = outcome.failures;
      if (first === undefined) return base;
      const detail = [
        ...outcome.failures.map((failure) => `${location(testCase.file, failure)}: ${failure.message}`),
        ...distinctComparisons(outcome.failures).flatMap((failure) => ['', ...formatDiff(valueDiff(failure.expected, failure.actual))]),
        ...(outcome.ticker === undefined || outcome.ticker.length === 0 ? [] : ['', 'ticker:', ...outcome.ticker]),
      ].join('\n');
      return { ...base, failure: { message: `${location(testCase.file, first)}: ${first.message}`, type: testCase.kind, detail } };
    }),
  }));
  const byFile = new Map<string, Problem[]>();
  for (const problem of problems) byFile.set(problem.file, [...(byFile.get(problem.file) ?? []), problem]);
  for (const [file, list] of byFile) {
    junitSuites.push({
      name: file,
      file,
      cases: list.map((problem) => ({
        name: `${problem.line}:${problem.column} ${problem.code}`,
        classname: file,
        failure: { message: formatProblem(problem), type: problem.code },
      })),
    });
  }
  return junitXml('syncline test', junitSuites);
}
