/**
 * Expected lines (a webhook case's `expect.ticker`) against the lines a call produced: each expected
 * line must be found, in the order written, among the actual lines — an actual line matches when
 * it equals the expected line or contains it. Lines between them are passed over, so a case states
 * what matters (`queued`, `condition: the execution condition is false`) and not every line.
 */
import type { CaseFailure, Locate } from '../test-case.js';

export function compareLines(
  expected: readonly string[],
  actual: readonly string[],
  at: Locate,
  path: readonly (string | number)[],
): CaseFailure[] {
  let from = 0;
  for (const [index, line] of expected.entries()) {
    const text = String(line);
    const found = actual.findIndex((candidate, position) => position >= from && candidate.includes(text));
    if (found < 0) {
      const earlier = actual.slice(0, from).some((candidate) => candidate.includes(text));
      return [
        {
          message: earlier
            ? `ticker line ${index + 1} (${JSON.stringify(text)}) comes before the line matching ticker line ${index}, not after it`
            : `no ticker line contains ${JSON.stringify(text)}`,
          at: at([...path, index]),
          expected: text,
          actual: [...actual],
        },
      ];
    }
    from = found + 1;
  }
  return [];
}

/** Whether any expected line matches one of `lines` (equal or contained). */
export function mentions(expected: readonly string[] | undefined, lines: readonly string[]): boolean {
  return (expected ?? []).some((line) => lines.some((candidate) => candidate.includes(String(line))));
}
