/**
 * The definitions a command works on (serve, daemon, run, discover), loaded once from one
 * directory: every problem printed as `syncline validate` prints it (warnings too, so whoever starts
 * a command sees what validate would say), and none to work on when any is an error.
 */
import { loadConnectorSpecs } from '../../connectors/index.js';
import type { ConnectorSpecs } from '../../definitions/connector-spec.js';
import { loadDefinitions, type LoadResult } from '../../definitions/load-definitions.js';
import { DefinitionsPathError } from '../../definitions/load/find-files.js';
import { formatProblem } from '../../definitions/problem.js';
import type { Snapshot } from '../../definitions/snapshot.js';

export interface CommandDefinitions {
  snapshot: Snapshot;
  /** The connector specs they were checked against (a watcher reloads with the same). */
  connectors: ConnectorSpecs;
}

/**
 * The loaded definitions, or the exit code after printing why there are none: 2 for a path that
 * is no definitions directory, 1 for problems (`notDoing` says what the command does not do then).
 */
export async function loadCommandDefinitions(directory: string, notDoing: string): Promise<CommandDefinitions | number> {
  const connectors = await loadConnectorSpecs();
  let loaded: LoadResult;
  try {
    loaded = await loadDefinitions([directory], { connectors });
  } catch (error) {
    if (!(error instanceof DefinitionsPathError)) throw error;
    process.stderr.write(`error: definitions: ${error.message}\n`);
    return 2;
  }
  for (const problem of loaded.problems) process.stderr.write(`${formatProblem(problem)}\n`);
  if (!loaded.ok) {
    process.stderr.write(`${notDoing}: ${loaded.problems.length} problem(s) in ${directory}\n`);
    return 1;
  }
  return { snapshot: loaded.snapshot, connectors };
}
