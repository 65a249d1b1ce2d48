/**
 * JUnit XML, the report format CI systems (GitHub Actions test reporters, GitLab, Jenkins) read.
 * `syncline validate --format junit` and `syncline test --format junit` both write it: one
 * <testsuite> per file, one <testcase> per check or case, a <failure> for each that failed.
 */

export interface JunitCase {
  name: string;
  /** The group a CI shows the case under, e.g. the definitions or test file. */
  classname: string;
  /** Seconds; omitted when not measured. */
  time?: number;
  /** Present when the case failed: the one-line message and the detail (a diff, a position). */
  failure?: { message: string; type?: string; detail?: string };
  /** Present when the case was not run, with why. */
  skipped?: string;
  /** Text the case printed, shown beside it (<system-out>): notes that do not fail it, such as warnings. */
  output?: string;
}

export interface JunitSuite {
  name: string;
  /** The file the suite stands for, when it is one. */
  file?: string;
  cases: readonly JunitCase[];
}

export function junitXml(name: string, suites: readonly JunitSuite[]): string {
  const all = suites.flatMap((suite) => suite.cases);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${attribute(name)}" tests="${all.length}" failures="${failures(all)}" skipped="${skips(all)}"${time(all)}>`,
  ];
  for (const suite of suites) {
    const file = suite.file === undefined ? '' : ` file="${attribute(suite.file)}"`;
    lines.push(
      `  <testsuite name="${attribute(suite.name)}"${file} tests="${suite.cases.length}" failures="${failures(suite.cases)}" errors="0" skipped="${skips(suite.cases)}"${time(suite.cases)}>`,
    );
    for (const testCase of suite.cases) lines.push(...caseLines(testCase));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

function caseLines(testCase: JunitCase): string[] {
  const open = `    <testcase name="${attribute(testCase.name)}" classname="${attribute(testCase.classname)}"${
    testCase.time === undefined ? '' : ` time="${testCase.time.toFixed(3)}"`
  }`;
  if (testCase.failure === undefined && testCase.skipped === undefined && testCase.output === undefined) return [`${open}/>`];
  const lines = [`${open}>`];
  if (testCase.skipped !== undefined) lines.push(`      <skipped message="${attribute(testCase.skipped)}"/>`);
  if (testCase.failure !== undefined) {
    const { message, type, detail } = testCase.failure;
    const typed = type === undefined ? '' : ` type="${attribute(type)}"`;
    lines.push(
      detail === undefined
        ? `      <failure message="${attribute(message)}"${typed}/>`
        : `      <failure message="${attribute(message)}"${typed}>${text(detail)}</failure>`,
    );
  }
  if (testCase.output !== undefined) lines.push(`      <system-out>${text(testCase.output)}</system-out>`);
  lines.push('    </testcase>');
  return lines;
}

function failures(cases: readonly JunitCase[]): number {
  return cases.filter((testCase) => testCase.failure !== undefined).length;
}

function skips(cases: readonly JunitCase[]): number {
  return cases.filter((testCase) => testCase.skipped !== undefined && testCase.failure === undefined).length;
}

function time(cases: readonly JunitCase[]): string {
  if (!cases.some((testCase) => testCase.time !== undefined)) return '';
  return ` time="${cases.reduce((sum, testCase) => sum + (testCase.time ?? 0), 0).toFixed(3)}"`;
}

/**
 * XML 1.0 cannot carry most control characters even escaped; they become U+FFFD so a record's
 * stray byte does not make the whole report unreadable to the CI.
 */
function text(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function attribute(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
