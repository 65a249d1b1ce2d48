/**
 * `syncline validate --format sarif`: a SARIF 2.1.0 log, the format GitHub code scanning (and
 * other viewers) read; upload it with github/codeql-action/upload-sarif. One run; the tool is
 * Syncline with one rule per problem code found (problem-codes.ts says what each is about); one
 * result per problem, its level `error` or `warning` as the problem's severity, located by a path
 * relative to the repository root (uriBaseId %SRCROOT%, spelt out in originalUriBaseIds) and the
 * 1-based line and column.
 *
 * Under --strict a warning keeps level `warning`: SARIF's level says what the finding is; the
 * failing is the exit code's (the run's invocation records it).
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { problemRule } from '../../../definitions/problem-codes.js';
import { severityOf, type Problem } from '../../../definitions/problem.js';
import { repositoryPath } from './repository-path.js';
import { outcomeFails, type ValidateOutcome } from './validate-outcome.js';

export interface SarifTool {
  name: string;
  version: string;
  /** The project's home, when the package names one. */
  informationUri?: string;
}

const rootId = '%SRCROOT%';

export function sarifLog(outcome: ValidateOutcome, tool: SarifTool, root: string): string {
  const codes = [...new Set(outcome.problems.map((problem) => problem.code))].sort();
  const rules = codes.map((code) => ({
    id: code,
    name: ruleName(code),
    shortDescription: { text: problemRule(code) },
    defaultConfiguration: { level: defaultLevel(outcome.problems, code) },
  }));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            version: tool.version,
            semanticVersion: tool.version,
            ...(tool.informationUri === undefined ? {} : { informationUri: tool.informationUri }),
            rules,
          },
        },
        originalUriBaseIds: { [rootId]: { uri: directoryUri(root) } },
        invocations: [{ executionSuccessful: true, exitCode: outcomeFails(outcome) ? 1 : 0 }],
        results: outcome.problems.map((problem) => result(problem, codes.indexOf(problem.code), root)),
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function result(problem: Problem, ruleIndex: number, root: string) {
  const owner = problem.kind === undefined ? '' : `${problem.kind}/${problem.id ?? '?'}: `;
  return {
    ruleId: problem.code,
    ruleIndex,
    level: severityOf(problem),
    message: { text: `${owner}${problem.message}` },
    locations: [
      {
        physicalLocation: {
          artifactLocation: artifactLocation(repositoryPath(problem.file, root)),
          region: { startLine: problem.line, startColumn: problem.column },
        },
      },
    ],
  };
}

/** Relative to the root through %SRCROOT%; a file outside the root by its own file URI. */
function artifactLocation(path: string): { uri: string; uriBaseId?: string } {
  return isAbsolute(path) ? { uri: pathToFileURL(path).href } : { uri: encodeURI(path), uriBaseId: rootId };
}

/** `unknown-reference` → `UnknownReference`: SARIF's rule name is an identifier, the id stays the code. */
function ruleName(code: string): string {
  return code
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** A code that is an error anywhere in this run is an error rule; one only seen as a warning is a warning rule. */
function defaultLevel(problems: readonly Problem[], code: string): 'error' | 'warning' {
  return problems.some((problem) => problem.code === code && severityOf(problem) === 'error') ? 'error' : 'warning';
}

/** The root as a file URI ending in `/`, as SARIF wants a base URI. */
function directoryUri(root: string): string {
  const uri = pathToFileURL(root).href;
  return uri.endsWith('/') ? uri : `${uri}/`;
}
