/**
 * `syncline test`'s report for people: per test file, ✓ or ✗ per case; under a failed case each
 * failure as `file:line:col: message` (an editor or terminal jumps there) and the expected value
 * against the actual one as a diff; the ticker of a webhook case that failed; a summary line with
 * counts and time. Colour only when asked for (a terminal without NO_COLOR).
 */
import type { CaseFailure } from '../../testing/test-case.js';
import { countResults, type CaseResult, type SuiteResult } from '../../testing/run-tests.js';
import { formatDiff, valueDiff } from '../../testing/value-diff.js';

export interface TextStyle {
  colour: boolean;
}

const codes = { red: 31, green: 32, dim: 2, bold: 1 } as const;

function paint(style: TextStyle, code: keyof typeof codes, text: string): string {
  return style.colour ? `\u001b[${codes[code]}m${text}\u001b[0m` : text;
}

/** The file's name, above its cases. */
export function suiteHeader(file: string, style: TextStyle): string {
  return paint(style, 'bold', file);
}

export function summaryLine(suites: readonly SuiteResult[], durationMs: number, style: TextStyle): string {
  const { cases, passed, failed } = countResults(suites);
  const counts = `${cases} case${cases === 1 ? '' : 's'}: ${paint(style, 'green', `${passed} passed`)}, ${
    failed > 0 ? paint(style, 'red', `${failed} failed`) : '0 failed'
  }`;
  return `${counts} ${paint(style, 'dim', `(${milliseconds(durationMs)})`)}`;
}

/** A case's line, and under a failed one its failures, diffs and ticker. */
export function caseLines(result: CaseResult, style: TextStyle): string[] {
  const { testCase, outcome } = result;
  const time = paint(style, 'dim', `(${milliseconds(result.durationMs)})`);
  if (outcome.failures.length === 0) return [`  ${paint(style, 'green', '✓')} ${testCase.name} ${time}`];
  const lines = [`  ${paint(style, 'red', '✗')} ${testCase.name} ${time}`];
  for (const failure of outcome.failures) lines.push(`    ${location(testCase.file, failure)}: ${failure.message}`);
  for (const failure of distinctComparisons(outcome.failures)) {
    lines.push(`      ${paint(style, 'red', '- expected')}  ${paint(style, 'green', '+ actual')}`);
    for (const line of formatDiff(valueDiff(failure.expected, failure.actual))) {
      const coloured = line.startsWith('-') ? paint(style, 'red', line) : line.startsWith('+') ? paint(style, 'green', line) : line;
      lines.push(`      ${coloured}`);
    }
  }
  if (outcome.ticker !== undefined && outcome.ticker.length > 0) {
    lines.push('      ticker:');
    for (const line of outcome.ticker) lines.push(`        ${paint(style, 'dim', line)}`);
  }
  return lines;
}

/** `file:line:col`, as problems and compilers write it. */
export function location(file: string, failure: CaseFailure): string {
  return `${file}:${failure.at.line}:${failure.at.column}`;
}

/**
 * The failures that compare something, each comparison once: a mapping's differences all carry the
 * same expected and actual record, which one diff shows.
 */
export function distinctComparisons(failures: readonly CaseFailure[]): CaseFailure[] {
  const seen: CaseFailure[] = [];
  for (const failure of failures) {
    if (failure.expected === undefined && failure.actual === undefined) continue;
    // true against false says nothing the message does not.
    if (typeof failure.expected === 'boolean' && typeof failure.actual === 'boolean') continue;
    if (seen.some((other) => other.expected === failure.expected && other.actual === failure.actual)) continue;
    seen.push(failure);
  }
  return seen;
}

export function milliseconds(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.max(0, Math.round(ms))} ms`;
}
