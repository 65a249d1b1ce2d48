/**
 * A definition problem is data: the loader collects them, the CLI prints them, the console
 * shows them and the tests assert on them. Positions are 1-based, as editors show them.
 *
 * Most problems are errors: the definitions are refused. A warning names something that works
 * but is likely a mistake (firstOnly without order); the definitions load, `syncline validate`
 * prints it and exits 0.
 */
export type Severity = 'error' | 'warning';

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
  /** Absent: an error. */
  severity?: Severity;
}

export function severityOf(problem: Problem): Severity {
  return problem.severity ?? 'error';
}

export function isError(problem: Problem): boolean {
  return severityOf(problem) === 'error';
}

/** The problem with its severity spelled out, as JSON output shows it. */
export function problemJson(problem: Problem): Problem & { severity: Severity } {
  return { ...problem, severity: severityOf(problem) };
}

/**
 * `file:line:col: Kind/id: message` — the one-line form `syncline validate` prints; a warning
 * reads `file:line:col: warning: Kind/id: message`.
 */
export function formatProblem(problem: Problem): string {
  const owner = problem.kind ? `${problem.kind}/${problem.id ?? '?'}: ` : '';
  const severity = problem.severity === 'warning' ? 'warning: ' : '';
  return printable(`${problem.file}:${problem.line}:${problem.column}: ${severity}${owner}${problem.message}`);
}

/**
 * Control characters (an ESC that clears a terminal or colours a forged "all valid", a line break
 * that starts a fake problem line, NUL) and the marks that reorder text (U+202E) as `\u001b`: a
 * definition's id or value is the file author's text, and a problem line goes to a terminal or a
 * CI log as it is.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** "3 problems (1 warning) in 2 files", for the end of a report. */
export function summarizeProblems(problems: readonly Problem[]): string {
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const warnings = problems.length - problems.filter(isError).length;
  const files = new Set(problems.map((problem) => problem.file)).size;
  return `${count(problems.length, 'problem')}${warnings > 0 ? ` (${count(warnings, 'warning')})` : ''} in ${count(files, 'file')}`;
}

/** Problems sorted by file, then position, so output is stable across runs. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.code.localeCompare(b.code),
  );
}

/** Each problem once: two searches of one directory (definitions, test files) may both report a link they refuse. */
export function distinctProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.file}:${problem.line}:${problem.column}:${problem.code}:${problem.message}`;
    return !seen.has(key) && seen.add(key);
  });
}
