/**
 * A definition problem is data: the loader collects them, the CLI prints them, the console
 * shows them and the tests assert on them. Positions are 1-based, as editors show them.
 */
export interface Problem {
  /** Path of the file as the user gave it (relative to the working directory when possible). */
  file: string;
  line: number;
  column: number;
  /** Definition kind, when the problem belongs to a document whose kind is known. */
  kind?: string;
  /** Definition id, when known. */
  id?: string;
  /** Stable, machine-readable code, e.g. `yaml-syntax`, `schema`, `unknown-reference`. */
  code: string;
  /** One sentence that names the place and, where there is one, the fix. */
  message: string;
}

/** `file:line:col: Kind/id: message` — the one-line form `syncline validate` prints. */
export function formatProblem(problem: Problem): string {
  const owner = problem.kind ? `${problem.kind}/${problem.id ?? '?'}: ` : '';
  return `${problem.file}:${problem.line}:${problem.column}: ${owner}${problem.message}`;
}

/** Problems sorted by file, then position, so output is stable across runs. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.code.localeCompare(b.code),
  );
}
