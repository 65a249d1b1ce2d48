/**
 * `syncline validate --format github`: one GitHub Actions workflow command per problem, which the
 * runner turns into an annotation on the file and line of the pull request's diff:
 *
 *   ::error file=definitions/syncs.yaml,line=4,col=19,title=Sync/crm-to-erp (unknown-reference)::target.system: …
 *
 * An error becomes `::error`, a warning `::warning` — also under --strict, where the warning fails
 * the check but is still a warning in kind (the summary line says that warnings fail).
 *
 * Escaping follows the runner's rules: in the message `%`, `\r` and `\n` are written `%25`, `%0D`
 * and `%0A`; in a property also `:` and `,` (`%3A`, `%2C`), which would otherwise end the
 * property or the property list. File paths are relative to the repository (repository-path.ts).
 */
import { severityOf, type Problem } from '../../../definitions/problem.js';
import { repositoryPath } from './repository-path.js';
import type { ValidateOutcome } from './validate-outcome.js';

export function githubAnnotations(outcome: ValidateOutcome, root: string): string {
  return outcome.problems.map((problem) => `${annotation(problem, root)}\n`).join('');
}

function annotation(problem: Problem, root: string): string {
  const title = problem.kind === undefined ? problem.code : `${problem.kind}/${problem.id ?? '?'} (${problem.code})`;
  const properties = [
    ['file', repositoryPath(problem.file, root)],
    ['line', String(problem.line)],
    ['col', String(problem.column)],
    ['title', title],
  ]
    .map(([name, value]) => `${name}=${escapeProperty(value!)}`)
    .join(',');
  return `::${severityOf(problem)} ${properties}::${escapeData(problem.message)}`;
}

/** The message of a workflow command. */
export function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value of a workflow command. */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
