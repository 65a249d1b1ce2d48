/**
 * `syncline serve` — loads the definitions, serves them over HTTP and reloads them when files
 * change. Definitions that are invalid at start are printed and the process exits 1: serving
 * nothing would hide the mistake.
 */
import { once } from 'node:events';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { DefinitionsPathError } from '../../definitions/load/find-files.js';
import { formatProblem } from '../../definitions/problem.js';
import { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import { watchDefinitions } from '../../definitions/watch-definitions.js';
import { createApp } from '../http/create-app.js';
import { createLogger } from '../log.js';
import { serveSettings, SettingsError } from '../settings.js';

export async function serveCommand(flags: { definitions?: string; port?: string; host?: string }): Promise<number> {
  let settings;
  try {
    settings = serveSettings(flags);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const log = createLogger();
  let loaded;
  try {
    loaded = await loadDefinitions([settings.definitions]);
  } catch (error) {
    if (!(error instanceof DefinitionsPathError)) throw error;
    process.stderr.write(`error: definitions: ${error.message}\n`);
    return 2;
  }
  if (!loaded.ok) {
    for (const problem of loaded.problems) process.stderr.write(formatProblem(problem) + '\n');
    process.stderr.write(`not serving: ${loaded.problems.length} problem(s) in ${settings.definitions}\n`);
    return 1;
  }

  const holder = new SnapshotHolder(loaded.snapshot);
  const watcher = watchDefinitions([settings.definitions], holder);
  holder.on('swap', (snapshot) => log.info({ digest: snapshot.digest.slice(0, 12), durationMs: Math.round(holder.status.durationMs) }, 'definitions reloaded'));
  holder.on('rejected', (problems) => {
    // One line per problem, so the log reads like `syncline validate`.
    for (const problem of problems) log.warn({ problem: problem.code }, `reload rejected, old definitions keep serving: ${formatProblem(problem)}`);
  });

  const server = createApp(holder, log).listen(settings.port, settings.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    process.stderr.write(`error: cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}\n`);
    await watcher.close();
    return 1;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  log.info({ definitions: settings.definitions, files: loaded.snapshot.files.length }, `serving on http://${settings.host}:${port}`);

  const signal = await Promise.race([once(process, 'SIGTERM'), once(process, 'SIGINT')]);
  log.info({ signal }, 'shutting down');
  await watcher.close();
  server.close();
  await once(server, 'close');
  return 0;
}
