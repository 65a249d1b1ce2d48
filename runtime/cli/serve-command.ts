/**
 * `syncline serve` — loads the definitions, serves them over HTTP and reloads them when files
 * change. Definitions that are invalid at start are printed and the process exits 1: serving
 * nothing would hide the mistake.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { ConnectionPool } from '../../connectors/connection-pool.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { DefinitionsPathError } from '../../definitions/load/find-files.js';
import { formatProblem } from '../../definitions/problem.js';
import { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import { watchDefinitions } from '../../definitions/watch-definitions.js';
import { sha256 } from '../http/auth.js';
import { createApp } from '../http/create-app.js';
import { createLogger } from '../log.js';
import { serveSettings, SettingsError, type ServeFlags } from '../settings.js';

export async function serveCommand(flags: ServeFlags): Promise<number> {
  // Registered first, so a signal during start-up also ends the process cleanly.
  const stop = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
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
  const connections = new ConnectionPool({ baseDirectory: process.cwd() });
  const watcher = watchDefinitions([settings.definitions], holder);
  holder.on('swap', (snapshot) => {
    log.info({ digest: snapshot.digest.slice(0, 12), durationMs: Math.round(holder.status.durationMs) }, 'definitions reloaded');
    // Connections of systems that changed or went away are closed; the others are kept.
    connections.retain([...snapshot.systems.values()].map((s) => s.definition)).catch((error: unknown) => log.warn({ err: error }, 'closing a stale connection failed'));
  });
  holder.on('rejected', (problems) => {
    // One line per problem, so the log reads like `syncline validate`.
    for (const problem of problems) log.warn({ problem: problem.code }, `reload rejected, old definitions keep serving: ${formatProblem(problem)}`);
  });

  const app = createApp({ holder, log, connections, adminTokenHash: sha256(adminToken()), bodyLimit: settings.bodyLimit, version: packageVersion() });
  const server = app.listen(settings.port, settings.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    process.stderr.write(`error: cannot listen on ${settings.host}:${settings.port}: ${(error as Error).message}\n`);
    await Promise.all([watcher.close(), connections.closeAll()]);
    return 1;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  log.info({ definitions: settings.definitions, files: loaded.snapshot.files.length }, `serving on http://${host}:${port}`);

  const signal = await stop;
  log.info({ signal }, 'shutting down');
  await watcher.close();
  server.close();
  server.closeIdleConnections();
  await once(server, 'close');
  await connections.closeAll();
  return 0;
}

/**
 * SYNCLINE_ADMIN_TOKEN, or a random token printed once on standard error: an instance is never
 * open to anyone, and never locked to its operator either.
 */
function adminToken(): string {
  const configured = process.env.SYNCLINE_ADMIN_TOKEN;
  if (configured) return configured;
  const token = randomBytes(24).toString('base64url');
  process.stderr.write(`admin token (generated for this run; set SYNCLINE_ADMIN_TOKEN to choose one): ${token}\n`);
  return token;
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
