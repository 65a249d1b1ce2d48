/**
 * `syncline test [DIR...] [--format text|json|junit] [--definitions DIR]` — runs the cases of the
 * test files (`*.test.yaml`) offline against the definitions they test.
 *
 * Which definitions: `--definitions DIR` for every test file given; without it, each DIR is tested
 * against the definitions in it (tests beside the definitions, the usual layout), and a test file
 * named alone against the definitions of its directory. With no DIR at all, the definitions
 * directory `serve` would use (--definitions, SYNCLINE_DEFINITIONS, the default) and its tests.
 *
 * Exit codes: 0 every case passed; 1 a case failed; 2 nothing could be run as asked — unusable
 * flags, a path that is not there, no test files, definitions with errors, or test files with
 * problems (schema, unknown sync or webhook), each printed as `file:line:col: message`.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadConnectorSpecs } from '../../connectors/index.js';
import type { ConnectorSpecs } from '../../definitions/connector-spec.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { DefinitionsPathError, findTestFiles } from '../../definitions/load/find-files.js';
import { distinctProblems, formatProblem, isError, summarizeProblems, type Problem } from '../../definitions/problem.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { caseRunners } from '../testing/case-runners.js';
import { loadTestFiles, type TestSuite } from '../testing/load-test-files.js';
import { runSuites, type SuiteResult } from '../testing/run-tests.js';
import { defaults } from '../settings.js';
import { jsonReport } from './reports/test-json-report.js';
import { junitReport } from './reports/test-junit-report.js';
import { caseLines, suiteHeader, summaryLine, type TextStyle } from './reports/test-text-report.js';

export interface TestFlags {
  format: string;
  definitions?: string;
}

const formats = ['text', 'json', 'junit'] as const;
type Format = (typeof formats)[number];

/** Test files and the one definitions directory they are run against. */
interface Group {
  definitions: string;
  tests: string[];
}

/** A group ready to run: its definitions loaded and its cases read. */
interface Loaded {
  snapshot: Snapshot;
  suites: TestSuite[];
}

export async function testCommand(dirs: readonly string[], flags: TestFlags): Promise<number> {
  if (!(formats as readonly string[]).includes(flags.format)) {
    process.stderr.write(`error: --format must be text, json or junit, not '${flags.format}'\n`);
    return 2;
  }
  const format = flags.format as Format;
  const connectors = await loadConnectorSpecs();
  const loaded: Loaded[] = [];
  const problems: Problem[] = [];
  try {
    for (const group of groupsOf(dirs, flags)) {
      const result = await loadGroup(group, connectors);
      if ('usage' in result) {
        process.stderr.write(`error: ${result.usage}\n`);
        return 2;
      }
      problems.push(...result.problems);
      if (result.loaded) loaded.push(result.loaded);
    }
  } catch (error) {
    if (!(error instanceof DefinitionsPathError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const errors = problems.filter(isError);
  // Warnings of the definitions are said as validate says them, and do not stop the run.
  for (const problem of problems) process.stderr.write(`${formatProblem(problem)}\n`);
  if (errors.length > 0) {
    process.stderr.write(`${summarizeProblems(problems)}; no case was run\n`);
    if (format === 'json') process.stdout.write(jsonReport([], 0, problems));
    if (format === 'junit') process.stdout.write(junitReport([], errors));
    return 2;
  }

  const style: TextStyle = { colour: process.stdout.isTTY === true && !process.env.NO_COLOR };
  const started = performance.now();
  const results: SuiteResult[] = [];
  let shown: TestSuite | undefined;
  for (const group of loaded) {
    const ran = await runSuites(group.suites, group.snapshot, {
      runners: caseRunners,
      onCase(result, suite) {
        if (format !== 'text') return;
        // Each case is shown as it ends: a slow webhook or sync case shows where the run is.
        if (suite !== shown) process.stdout.write(`${shown === undefined ? '' : '\n'}${suiteHeader(suite.file, style)}\n`);
        shown = suite;
        process.stdout.write(`${caseLines(result, style).join('\n')}\n`);
      },
    });
    results.push(...ran);
  }
  const durationMs = performance.now() - started;
  if (format === 'text') process.stdout.write(`\n${summaryLine(results, durationMs, style)}\n`);
  if (format === 'json') process.stdout.write(jsonReport(results, durationMs, problems));
  if (format === 'junit') process.stdout.write(junitReport(results, []));
  return results.some(({ results: cases }) => cases.some((result) => result.outcome.failures.length > 0)) ? 1 : 0;
}

/** The definitions each test path is run against (see the top of this file). */
function groupsOf(dirs: readonly string[], flags: TestFlags): Group[] {
  if (dirs.length === 0) {
    const definitions = flags.definitions ?? process.env.SYNCLINE_DEFINITIONS ?? defaults.definitions;
    if (!existsSync(definitions)) {
      // Without a DIR the directory comes from elsewhere; say from where, and how to name one.
      const from =
        flags.definitions !== undefined
          ? '--definitions'
          : process.env.SYNCLINE_DEFINITIONS !== undefined
            ? 'SYNCLINE_DEFINITIONS'
            : 'the default';
      throw new DefinitionsPathError(
        `${definitions}: no such file or directory (the definitions directory from ${from}); name yours: syncline test DIR`,
      );
    }
    return [{ definitions, tests: [definitions] }];
  }
  if (flags.definitions !== undefined) return [{ definitions: flags.definitions, tests: [...dirs] }];
  const groups = new Map<string, Group>();
  for (const dir of dirs) {
    const info = statSync(dir, { throwIfNoEntry: false });
    if (info === undefined) throw new DefinitionsPathError(`${dir}: no such file or directory`);
    const definitions = info.isFile() ? dirname(dir) || '.' : dir;
    const key = resolve(definitions);
    const group = groups.get(key) ?? { definitions, tests: [] };
    group.tests.push(dir);
    groups.set(key, group);
  }
  return [...groups.values()];
}

type GroupResult = { usage: string } | { problems: Problem[]; loaded?: Loaded };

async function loadGroup(group: Group, connectors: ConnectorSpecs): Promise<GroupResult> {
  const files = await findTestFiles(group.tests);
  if (files.length === 0) return { usage: `no test files (*.test.yaml, *.test.yml) in ${group.tests.join(', ')}` };
  const definitions = await loadDefinitions([group.definitions], { connectors });
  if (!definitions.ok) {
    const empty = definitions.problems.some((problem) => problem.code === 'no-definitions');
    if (empty && files.length > 0) {
      return {
        usage: `${group.definitions} holds test files but no definitions; name the definitions they test with --definitions DIR`,
      };
    }
  }
  const tests = await loadTestFiles(files, definitions.ok ? definitions.snapshot : undefined);
  const problems = distinctProblems([...definitions.problems, ...tests.problems]);
  if (!definitions.ok || tests.problems.length > 0) return { problems };
  return { problems, loaded: { snapshot: definitions.snapshot, suites: tests.suites } };
}
