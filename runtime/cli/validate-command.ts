/**
 * `syncline validate DIR... [--format FORMAT] [--strict]` — the check integration engineers run in CI.
 * Exit 0 when the definitions load (warnings reported), 1 when any problem is an error — or,
 * with --strict, a warning — and 2 for unusable arguments.
 *
 * Formats: `text` (one `file:line:col: Kind/id: message` line each) and `json` for people and
 * scripts; `github` (workflow-command annotations), `junit` (a test report) and `sarif` (code
 * scanning) for CI, each written by its own module under reports/. Every format tells warnings
 * from errors. The machine formats keep standard output for the report alone and say the summary
 * on standard error.
 *
 * The test files among them (`*.test.yaml`) are checked too, though never loaded as definitions:
 * their schema, and — when definitions were given and loaded — that every sync, webhook, system
 * and object a case names exists. So CI's validate step catches a broken test file before `syncline test`
 * runs. A directory holding only test files is no definitions directory, and not reported empty.
 */
import { resolve } from 'node:path';
import { loadConnectorSpecs } from '../../connectors/index.js';
import { loadDefinitions, type LoadResult } from '../../definitions/load-definitions.js';
import { DefinitionsPathError, findDefinitionFiles, findTestFiles } from '../../definitions/load/find-files.js';
import { distinctProblems, formatProblem, isError, problemJson, sortProblems, summarizeProblems } from '../../definitions/problem.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { packageHomepage, packageVersion } from '../package-info.js';
import { loadTestFiles, type LoadedTests } from '../testing/load-test-files.js';
import { githubAnnotations } from './reports/github-annotations.js';
import { reportRoot } from './reports/repository-path.js';
import { sarifLog } from './reports/sarif.js';
import { validateFormats, type ValidateFormat } from './reports/validate-formats.js';
import { validateJunit } from './reports/validate-junit.js';
import { outcomeFails, type ValidateOutcome } from './reports/validate-outcome.js';

export interface ValidateFlags {
  format: string;
  strict?: boolean;
}

/** The report each format writes to standard output. */
type Report = (outcome: ValidateOutcome, result: LoadResult, tests: TestCounts) => string;

/** How many test files and cases were checked beside the definitions. */
interface TestCounts {
  files: number;
  cases: number;
}

const formats: Record<ValidateFormat, Report> = {
  text: textReport,
  json: jsonReport,
  github: (outcome) => githubAnnotations(outcome, reportRoot()),
  junit: validateJunit,
  sarif: (outcome) => sarifLog(outcome, { name: 'syncline', version: packageVersion(), informationUri: packageHomepage() }, reportRoot()),
};

export async function validateCommand(dirs: readonly string[], flags: ValidateFlags): Promise<number> {
  if (!Object.hasOwn(formats, flags.format)) {
    process.stderr.write(`error: --format must be one of ${validateFormats.join(', ')}, not '${flags.format}'\n`);
    return 2;
  }
  const format = flags.format as ValidateFormat;
  let result: LoadResult;
  let tests: LoadedTests;
  try {
    const testFiles = await findTestFiles(dirs);
    const definitionDirs = await withoutTestOnlyDirectories(dirs, testFiles);
    result = await loadDefinitions(definitionDirs, { connectors: await loadConnectorSpecs() });
    // References are checked against definitions that loaded; with none given (a tests directory
    // alone), only the test files' own form is, and `syncline test --definitions` checks the rest.
    const references = result.ok && result.snapshot.files.length > 0 ? result.snapshot : undefined;
    tests = await loadTestFiles(testFiles, references);
  } catch (error) {
    if (!(error instanceof DefinitionsPathError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const outcome: ValidateOutcome = {
    problems: distinctProblems(sortProblems([...result.problems, ...tests.problems])),
    files: result.files,
    documents: result.documents,
    strict: flags.strict === true,
  };
  const failed = outcomeFails(outcome);
  const checkedTests = testCounts(tests);
  process.stdout.write(formats[format](outcome, result, checkedTests));
  // json is data alone, as it always was; text ends with its summary (on standard error when
  // the check fails, as before); the CI formats leave standard output to the report.
  if (format !== 'json' && (format !== 'text' || failed)) process.stderr.write(`${summary(outcome, result, checkedTests)}\n`);
  return failed ? 1 : 0;
}

/** A line per problem, warnings included; a passing check ends with its "valid:" line. */
function textReport(outcome: ValidateOutcome, result: LoadResult, tests: TestCounts): string {
  const lines = outcome.problems.map(formatProblem);
  if (!outcomeFails(outcome)) lines.push(summary(outcome, result, tests));
  return lines.map((line) => `${line}\n`).join('');
}

function jsonReport(outcome: ValidateOutcome, result: LoadResult, tests: TestCounts): string {
  const problems = outcome.problems.map(problemJson);
  // Valid: the definitions load and no test file has an error.
  const valid = result.ok && outcome.problems.every((problem) => !isError(problem));
  const body = valid && result.ok ? { valid: true, problems, definitions: counts(result.snapshot), tests } : { valid: false, problems };
  // --strict adds whether the check passed: valid says whether the definitions load.
  const strict = outcome.strict ? { strict: true, passed: !outcomeFails(outcome) } : {};
  return `${JSON.stringify({ ...body, ...strict }, null, 2)}\n`;
}

/**
 * The last word: "valid: 3 files (…), with 2 warnings" when the check passes, otherwise the count
 * of problems — with --strict, saying that warnings fail.
 */
function summary(outcome: ValidateOutcome, result: LoadResult, tests: TestCounts): string {
  const warnings = outcome.problems.filter((problem) => !isError(problem)).length;
  const strictNote = outcome.strict && warnings > 0 ? '; --strict: warnings fail' : '';
  if (outcomeFails(outcome) || !result.ok) return `${summarizeProblems(outcome.problems)}${strictNote}`;
  const definitions = Object.entries(counts(result.snapshot))
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  const warned = warnings === 0 ? '' : `, with ${warnings} warning${warnings === 1 ? '' : 's'}`;
  const files = result.snapshot.files.length;
  const testFiles =
    tests.files === 0
      ? ''
      : `; ${tests.files} test file${tests.files === 1 ? '' : 's'} (${tests.cases} case${tests.cases === 1 ? '' : 's'})`;
  return `valid: ${files} file${files === 1 ? '' : 's'} (${definitions})${testFiles}${warned}`;
}

/** The paths to load definitions from: all but directories that hold test files and nothing else. */
async function withoutTestOnlyDirectories(dirs: readonly string[], testFiles: readonly { root: string }[]): Promise<string[]> {
  const kept: string[] = [];
  for (const dir of dirs) {
    const root = resolve(dir);
    const hasTests = testFiles.some((file) => file.root === root);
    if (hasTests && (await findDefinitionFiles([dir])).length === 0) continue;
    kept.push(dir);
  }
  return kept;
}

function testCounts(tests: LoadedTests): TestCounts {
  return { files: tests.suites.length, cases: tests.suites.reduce((sum, suite) => sum + suite.cases.length, 0) };
}

function counts(snapshot: Snapshot): Record<string, number> {
  return {
    System: snapshot.systems.size,
    Sync: snapshot.syncs.size,
    Webhook: snapshot.webhooks.size,
    Flow: snapshot.flows.size,
    ApiClient: snapshot.apiClients.size,
  };
}
