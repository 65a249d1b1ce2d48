/**
 * The definitions of a long-running command (serve, daemon): loaded once, refused whole when
 * invalid at start (running on nothing would hide the mistake), then watched and swapped on every
 * valid edit while a bad edit leaves the old snapshot in place.
 */
import { formatProblem } from '../../definitions/problem.js';
import { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import { watchDefinitions, type DefinitionsWatcher } from '../../definitions/watch-definitions.js';
import type { Logger } from '../log.js';
import { loadCommandDefinitions } from './load-command-definitions.js';

export interface WatchedDefinitions {
  holder: SnapshotHolder;
  watcher: DefinitionsWatcher;
}

/** The watched definitions, or the exit code after printing why there are none (2 bad path, 1 problems). */
export async function loadWatchedDefinitions(directory: string, log: Logger, notDoing: string): Promise<WatchedDefinitions | number> {
  const loaded = await loadCommandDefinitions(directory, notDoing);
  if (typeof loaded === 'number') return loaded;
  const { connectors } = loaded;
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
