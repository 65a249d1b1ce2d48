/**
 * The definitions of a long-running command (serve, daemon): loaded once, refused whole when
 * invalid at start (running on nothing would hide the mistake), then watched and swapped on every
 * valid edit while a bad edit leaves the old snapshot in place.
 */
import { loadConnectorSpecs } from '../../connectors/index.js';
import { loadDefinitions, type LoadResult } from '../../definitions/load-definitions.js';
import { DefinitionsPathError } from '../../definitions/load/find-files.js';
import { formatProblem } from '../../definitions/problem.js';
import { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import { watchDefinitions, type DefinitionsWatcher } from '../../definitions/watch-definitions.js';
import type { Logger } from '../log.js';

export interface WatchedDefinitions {
  holder: SnapshotHolder;
  watcher: DefinitionsWatcher;
}

/** The watched definitions, or the exit code after printing why there are none (2 bad path, 1 problems). */
export async function loadWatchedDefinitions(directory: string, log: Logger, notDoing: string): Promise<WatchedDefinitions | number> {
  const connectors = await loadConnectorSpecs();
  let loaded: LoadResult;
  try {
    loaded = await loadDefinitions([directory], { connectors });
  } catch (error) {
    if (!(error instanceof DefinitionsPathError)) throw error;
    process.stderr.write(`error: definitions: ${error.message}\n`);
    return 2;
  }
  // Warnings too: the definitions serve, and whoever starts them sees what validate would say.
  for (const problem of loaded.problems) process.stderr.write(`${formatProblem(problem)}\n`);
  if (!loaded.ok) {
    process.stderr.write(`${notDoing}: ${loaded.problems.length} problem(s) in ${directory}\n`);
    return 1;
  }
  const holder = new SnapshotHolder(loaded.snapshot);
  const watcher = watchDefinitions([directory], holder, { connectors });
  holder.on('swap', (snapshot) => {
    log.info({ digest: snapshot.digest.slice(0, 12), durationMs: Math.round(holder.status.durationMs) }, 'definitions reloaded');
    for (const problem of holder.status.problems) log.warn({ problem: problem.code }, `reloaded with a warning: ${formatProblem(problem)}`);
  });
  holder.on('rejected', (problems) => {
    // One line per problem, so the log reads like `syncline validate`.
    for (const problem of problems)
      log.warn({ problem: problem.code }, `reload rejected, old definitions keep serving: ${formatProblem(problem)}`);
  });
  return { holder, watcher };
}
