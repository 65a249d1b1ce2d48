/** `syncline validate DIR... [--format text|json]` — the check integration engineers run in CI. */
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { DefinitionsPathError } from '../../definitions/load/find-files.js';
import { formatProblem } from '../../definitions/problem.js';
import type { Snapshot } from '../../definitions/snapshot.js';

export async function validateCommand(dirs: readonly string[], options: { format: string }): Promise<number> {
  if (options.format !== 'text' && options.format !== 'json') {
    process.stderr.write(`error: --format must be text or json, not '${options.format}'\n`);
    return 2;
  }
  let result;
  try {
    result = await loadDefinitions(dirs);
  } catch (error) {
    if (!(error instanceof DefinitionsPathError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  if (options.format === 'json') {
    const body = result.ok
      ? { valid: true, problems: [], definitions: counts(result.snapshot) }
      : { valid: false, problems: result.problems };
    process.stdout.write(JSON.stringify(body, null, 2) + '\n');
    return result.ok ? 0 : 1;
  }
  if (!result.ok) {
    for (const problem of result.problems) process.stdout.write(formatProblem(problem) + '\n');
    const files = new Set(result.problems.map((p) => p.file)).size;
    process.stderr.write(`${result.problems.length} problem${result.problems.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}\n`);
    return 1;
  }
  const summary = Object.entries(counts(result.snapshot)).map(([kind, n]) => `${n} ${kind}`).join(', ');
  process.stdout.write(`valid: ${result.snapshot.files.length} file${result.snapshot.files.length === 1 ? '' : 's'} (${summary})\n`);
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
