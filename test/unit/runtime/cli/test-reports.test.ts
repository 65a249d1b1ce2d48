/**
 * The three reports of `syncline test` from one made-up run: the text report's lines (colour only
 * when asked), the JSON shape docs/testing.md documents, and JUnit XML with the failure's place.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonReport } from '../../../../runtime/cli/reports/test-json-report.js';
import { junitReport } from '../../../../runtime/cli/reports/test-junit-report.js';
import { caseLines, summaryLine } from '../../../../runtime/cli/reports/test-text-report.js';
import type { SuiteResult } from '../../../../runtime/testing/run-tests.js';
import type { TestCase } from '../../../../runtime/testing/test-case.js';

const at = (line: number) => () => ({ line, column: 5 });
const passing: TestCase = { kind: 'filter', name: 'passes', file: 'defs/a.test.yaml', at: at(3), sync: 's', record: {}, expect: true };
const failing: TestCase = {
  kind: 'mapping',
  name: 'fails <here>',
  file: 'defs/a.test.yaml',
  at: at(8),
  sync: 's',
  input: {},
  output: { a: 1 },
};
const expected = { a: 1 };
const actual = { a: 2 };
const run: SuiteResult[] = [
  {
    suite: { file: 'defs/a.test.yaml', name: 'a', cases: [passing, failing] },
    results: [
      { testCase: passing, outcome: { failures: [] }, durationMs: 1.26 },
      {
        testCase: failing,
        outcome: { failures: [{ message: 'output.a: expected 1, got 2', at: { line: 12, column: 10 }, expected, actual }] },
        durationMs: 2,
      },
    ],
  },
];

test('text: ✓ and ✗ lines, file:line:col, the diff; colour codes only when asked', () => {
  const [ok, bad] = run[0]!.results;
  assert.deepEqual(caseLines(ok!, { colour: false }), ['  ✓ passes (1 ms)']);
  assert.deepEqual(caseLines(bad!, { colour: false }), [
    '  ✗ fails <here> (2 ms)',
    '    defs/a.test.yaml:12:10: output.a: expected 1, got 2',
    '      - expected  + actual',
    '        {',
    '      -   "a": 1',
    '      +   "a": 2',
    '        }',
  ]);
  assert.equal(summaryLine(run, 1500, { colour: false }), '2 cases: 1 passed, 1 failed (1.50 s)');
  assert.ok(!caseLines(bad!, { colour: false }).join('').includes('\u001b'));
  assert.ok(caseLines(bad!, { colour: true }).join('').includes('\u001b[31m✗\u001b[0m'));
});

test('json: the documented shape', () => {
  const report = JSON.parse(jsonReport(run, 12.345, []));
  assert.deepEqual(report, {
    passed: false,
    summary: { cases: 2, passed: 1, failed: 1, durationMs: 12.3 },
    files: [
      {
        file: 'defs/a.test.yaml',
        name: 'a',
        cases: [
          { name: 'passes', kind: 'filter', target: 's', line: 3, column: 5, passed: true, durationMs: 1.3, failures: [] },
          {
            name: 'fails <here>',
            kind: 'mapping',
            target: 's',
            line: 8,
            column: 5,
            passed: false,
            durationMs: 2,
            failures: [{ message: 'output.a: expected 1, got 2', line: 12, column: 10, expected, actual }],
          },
        ],
      },
    ],
    problems: [],
  });
});

test('junit: a suite per file, the failure with its place and diff, problems as failures of their file', () => {
  const xml = junitReport(run, [{ file: 'defs/b.test.yaml', line: 2, column: 3, code: 'schema', message: 'cases: needs 1 item' }]);
  assert.match(xml, /<testsuite name="a" file="defs\/a.test.yaml" tests="2" failures="1"/);
  assert.match(xml, /<testcase name="fails &lt;here&gt;" classname="defs\/a.test.yaml" time="0.002">/);
  assert.match(xml, /<failure message="defs\/a.test.yaml:12:10: output.a: expected 1, got 2" type="mapping">/);
  assert.match(xml, /- {3}"a": 1\n\+ {3}"a": 2/);
  assert.match(
    xml,
    /<testcase name="2:3 schema" classname="defs\/b.test.yaml">\n\s+<failure message="defs\/b.test.yaml:2:3: cases: needs 1 item" type="schema"\/>/,
  );
});
