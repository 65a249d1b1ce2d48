/**
 * `syncline validate --format junit`: the check as a test report (junit-xml.ts), for CI systems
 * that show test results (GitLab, Jenkins, the GitHub test-report actions).
 *
 * One suite per definitions file; one case per definition in it, named `Kind/id`. A definition is
 * what an engineer writes, reviews and fixes as a whole, so a case per definition reads like the
 * repository: a valid file shows each of its definitions passing, and a broken definition fails
 * once with every one of its problems in the failure's detail (a case per problem would hide the
 * valid definitions and count one misspelt key of a definition as several failed tests). A problem
 * outside any definition (a file that is not YAML, an empty directory, a link leading out) fails a
 * case named after the file itself.
 *
 * Warnings do not fail a case: they are listed in its <system-out>; under --strict they fail it.
 */
import type { CheckedDocument } from '../../../definitions/load-definitions.js';
import { formatProblem, type Problem } from '../../../definitions/problem.js';
import { junitXml, type JunitCase, type JunitSuite } from './junit-xml.js';
import { fails, type ValidateOutcome } from './validate-outcome.js';

export function validateJunit(outcome: ValidateOutcome): string {
  const files = [...new Set([...outcome.files, ...outcome.problems.map((problem) => problem.file)])].sort();
  const suites: JunitSuite[] = files.map((file) => {
    const documents = outcome.documents.filter((document) => document.file === file);
    const byDocument = new Map<CheckedDocument | undefined, Problem[]>();
    for (const problem of outcome.problems.filter((p) => p.file === file)) {
      const owner = ownerOf(problem, documents);
      byDocument.set(owner, [...(byDocument.get(owner) ?? []), problem]);
    }
    const cases = documents.map((document) => definitionCase(document, byDocument.get(document) ?? [], outcome.strict));
    const loose = byDocument.get(undefined);
    if (loose !== undefined) cases.unshift(problemsCase(file, file, loose, outcome.strict));
    return { name: file, file, cases };
  });
  return junitXml('syncline validate', suites);
}

/**
 * The definition a problem belongs to: the one it names (kind and id), else the one whose text
 * it lies in — the last to start at or before its line.
 */
function ownerOf(problem: Problem, documents: readonly CheckedDocument[]): CheckedDocument | undefined {
  const before = documents.filter((document) => document.line <= problem.line);
  const named = before.filter((document) => document.kind === problem.kind && document.id === problem.id);
  if (problem.kind !== undefined && problem.id !== undefined && named.length > 0) return named.at(-1);
  return before.at(-1) ?? documents[0];
}

function definitionCase(document: CheckedDocument, problems: readonly Problem[], strict: boolean): JunitCase {
  const name =
    document.kind !== undefined && document.id !== undefined ? `${document.kind}/${document.id}` : `document at line ${document.line}`;
  return problemsCase(name, document.file, problems, strict);
}

function problemsCase(name: string, file: string, problems: readonly Problem[], strict: boolean): JunitCase {
  const failing = problems.filter((problem) => fails(problem, strict));
  const notes = problems.filter((problem) => !fails(problem, strict));
  const first = failing[0];
  return {
    name,
    classname: file,
    ...(first === undefined
      ? {}
      : {
          failure: {
            message: failing.length === 1 ? first.message : `${failing.length} problems; the first: ${first.message}`,
            type: first.code,
            detail: failing.map(formatProblem).join('\n'),
          },
        }),
    ...(notes.length === 0 ? {} : { output: notes.map(formatProblem).join('\n') }),
  };
}
