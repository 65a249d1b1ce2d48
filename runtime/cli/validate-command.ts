/**
 * `syncline validate DIR... [--format text|json]` — the check integration engineers run in CI.
 * Exit 0 when the definitions load (warnings printed), 1 when any problem is an error.
 */
import { loadConnectorSpecs } from '../../connectors/index.js';
import { loadDefinitions, type LoadResult } from '../../definitions/load-definitions.js';
import { DefinitionsPathError } from '../../definitions/load/find-files.js';
import { formatProblem, problemJson, summarizeProblems } from '../../definitions/problem.js';
import type { Snapshot } from '../../definitions/snapshot.js';

export async function validateCommand(dirs: readonly string[], options: { format: string }): Promise<number> {
  if (options.format !== 'text' && options.format !== 'json') {
    process.stderr.write(`error: --format must be text or json, not '${options.format}'\n`);
    return 2;
  }
  let result: LoadResult;
  try {
    result = await loadDefinitions(dirs, { connectors: await loadConnectorSpecs() });
  } catch (error) {
    if (!(error instanceof DefinitionsPathError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  if (options.format === 'json') {
    const problems = result.problems.map(problemJson);
    const body = result.ok ? { valid: true, problems, definitions: counts(result.snapshot) } : { valid: false, problems };
    process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    return result.ok ? 0 : 1;
  }
  // Warnings are printed either way; only errors make the exit code 1.
  for (const problem of result.problems) process.stdout.write(`${formatProblem(problem)}\n`);
  if (!result.ok) {
    process.stderr.write(`${summarizeProblems(result.problems)}\n`);
    return 1;
  }
  const summary = Object.entries(counts(result.snapshot))
    .map(([kind, n]) => `${n} ${kind}`)
    .join(', ');
  const warnings = result.problems.length === 0 ? '' : `, with ${result.problems.length} warning${result.problems.length === 1 ? '' : 's'}`;
  process.stdout.write(
    `valid: ${result.snapshot.files.length} file${result.snapshot.files.length === 1 ? '' : 's'} (${summary})${warnings}\n`,
  );
  return 0;
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
