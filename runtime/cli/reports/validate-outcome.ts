/**
 * What `syncline validate` found, as every report format receives it: the problems (errors and
 * warnings, sorted), the files and documents that were checked, and whether warnings fail
 * (`--strict`). Each format writes the same outcome in its own way; validate-command.ts chooses.
 */
import type { CheckedDocument } from '../../../definitions/load-definitions.js';
import { isError, type Problem } from '../../../definitions/problem.js';

export interface ValidateOutcome {
  readonly problems: readonly Problem[];
  readonly files: readonly string[];
  readonly documents: readonly CheckedDocument[];
  /** `--strict`: a warning fails the check as an error does. */
  readonly strict: boolean;
}

/** Whether this problem makes the check fail: an error does, and a warning under --strict. */
export function fails(problem: Problem, strict: boolean): boolean {
  return strict || isError(problem);
}

/** Whether the check fails (exit 1). */
export function outcomeFails(outcome: ValidateOutcome): boolean {
  return outcome.problems.some((problem) => fails(problem, outcome.strict));
}
