/**
 * Runtime settings: flags first, then environment variables, then defaults — the defaults live
 * here and nowhere else.
 */
import { delimiter, resolve } from 'node:path';
import type { ConnectionContext } from '../connectors/connection.js';
import { parseDuration } from '../definitions/duration.js';
import { parseSize } from '../definitions/size.js';
import { databaseSetting, DatabaseUrlError, type DatabaseLocation } from './database/database-url.js';

export interface ServeSettings {
  definitions: string;
  port: number;
  host: string;
  /** Largest request body, in bytes. */
  bodyLimit: number;
  /** How long a client may take to send the request line and headers, in ms; then 408 and the connection closes. */
  headersTimeoutMs: number;
  /** How long a client may take to send the whole request, headers and body, in ms (the answer may take longer). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests, in ms. */
  keepAliveTimeoutMs: number;
  /** Most connections open at once; a connection past it is closed as soon as it is accepted. */
  maxConnections: number;
}

export interface ServeFlags {
  definitions?: string;
  port?: string;
  host?: string;
  bodyLimit?: string;
  headersTimeout?: string;
  requestTimeout?: string;
  keepAliveTimeout?: string;
  maxConnections?: string;
}

/**
 * Node's own limits would let a slow client hold a connection for 60 s before its headers are
 * complete and 5 min for its body, without any cap on connections: a few hundred clients trickling
 * bytes would hold the process. A real client sends its headers within milliseconds and a 1 MiB
 * body within seconds, so 10 s and 30 s refuse nobody real. The keep-alive time is Node's (behind
 * a proxy, set it longer than the proxy's idle timeout). 1000 connections is far more than one
 * process answers at once, and below the usual limit of open files.
 */
export const defaults: Readonly<ServeSettings> = Object.freeze({
  definitions: 'examples/quickstart',
  port: 3000,
  host: '127.0.0.1',
  bodyLimit: 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1000,
});

/**
 * Server-sent event streams that follow a queue item (GET /api/queue/{id}/events and the webhook
 * test dialog's run): each polls the runtime database, because the item may be run by a daemon in
 * another process and only PostgreSQL could signal across processes. 300 ms shows a run live
 * without turning 100 streams into more than ~330 light reads a second; 100 at once is more than
 * operators watch, and stops one client from pinning the process and the database with thousands.
 * A stream lives at most an hour; a client that still wants to watch opens it again.
 */
export const eventStreamDefaults = Object.freeze({
  maxStreams: 100,
  pollIntervalMs: 300,
  maxLifetimeMs: 3_600_000,
});

export class SettingsError extends Error {}

export function serveSettings(flags: ServeFlags, env: Readonly<Record<string, string | undefined>> = process.env): ServeSettings {
  const port = flags.port ?? env.SYNCLINE_PORT;
  const bodyLimit = flags.bodyLimit ?? env.SYNCLINE_BODY_LIMIT;
  /** A flag, else its variable (empty counts as unset), with the name to blame in a message. */
  const given = (flag: string | undefined, flagName: string, variable: string): { text: string; source: string } | undefined => {
    if (flag !== undefined) return { text: flag, source: flagName };
    const text = set(env[variable]);
    return text === undefined ? undefined : { text, source: variable };
  };
  const duration = (found: { text: string; source: string } | undefined, fallback: number): number =>
    found === undefined ? fallback : parseSettingDuration(found.text, found.source, 100);
  const headers = given(flags.headersTimeout, '--headers-timeout', 'SYNCLINE_HEADERS_TIMEOUT');
  const request = given(flags.requestTimeout, '--request-timeout', 'SYNCLINE_REQUEST_TIMEOUT');
  const headersTimeoutMs = duration(headers, defaults.headersTimeoutMs);
  const requestTimeoutMs = duration(request, defaults.requestTimeoutMs);
  if (headersTimeoutMs > requestTimeoutMs) {
    // Node refuses this pair: the headers are part of the request.
    throw new SettingsError(
      `${headers?.source ?? 'the headers timeout'} (${headersTimeoutMs}ms) must not be longer than ${request?.source ?? 'the request timeout'} (${requestTimeoutMs}ms): the headers are part of the request`,
    );
  }
  const connections = given(flags.maxConnections, '--max-connections', 'SYNCLINE_MAX_CONNECTIONS');
  return {
    definitions: flags.definitions ?? env.SYNCLINE_DEFINITIONS ?? defaults.definitions,
    port: port === undefined ? defaults.port : parsePort(port, flags.port !== undefined ? '--port' : 'SYNCLINE_PORT'),
    host: flags.host ?? env.SYNCLINE_HOST ?? defaults.host,
    bodyLimit:
      bodyLimit === undefined
        ? defaults.bodyLimit
        : sizeSetting(bodyLimit, flags.bodyLimit !== undefined ? '--body-limit' : 'SYNCLINE_BODY_LIMIT'),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: duration(
      given(flags.keepAliveTimeout, '--keep-alive-timeout', 'SYNCLINE_KEEP_ALIVE_TIMEOUT'),
      defaults.keepAliveTimeoutMs,
    ),
    maxConnections:
      connections === undefined
        ? defaults.maxConnections
        : parseWholeNumber(connections.text, connections.source, 1, 1_000_000, 'connections open at once'),
  };
}

/** `1048576`, `512kb`, `1MiB`, `2mb`. */
function sizeSetting(text: string, source: string): number {
  const bytes = parseSize(text);
  if (bytes === undefined) throw new SettingsError(`${source} must be a size such as 1048576, 512kb or 1mib, not '${text}'`);
  return bytes;
}

function parsePort(text: string, source: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new SettingsError(`${source} must be a port number from 0 to 65535, not '${text}'`);
  return port;
}

/** Settings of the queue: the runtime database, the daemon, and the direct HTTP runs. */
export interface QueueSettings {
  /** The runtime database (`--db`, `SYNCLINE_DB`; default the SQLite file of database-url.ts). */
  database: DatabaseLocation;
  /** Items one process runs at once. */
  concurrency: number;
  /** Most items a busy daemon claims ahead of its free slots, so the next one is on hand when a slot frees; 0: none (default: prefetchPerSlot × the concurrency). */
  prefetch: number;
  /** How long a claim holds without a heartbeat, in ms. */
  leaseMs: number;
  /** Longest sleep of an idle daemon between looks at the queue, in ms (wake-ups usually come sooner). */
  pollIntervalMs: number;
  /** Finished items are deleted this long after they finished, in ms. */
  retentionMs: number;
  /** On stop, how long running items may take to finish before they are interrupted and released, in ms. */
  drainMs: number;
  /** How long StartProcessDirect/ExecuteProcess wait for the run before answering 202, in ms. */
  syncTimeLimitMs: number;
  /** How often a daemon renews its row in the runtime database, in ms; three missed ones and it counts as gone. */
  heartbeatMs: number;
}

export interface QueueFlags {
  db?: string;
  concurrency?: string;
}

export const queueDefaults = Object.freeze({
  concurrency: 4,
  /**
   * The default prefetch, per item the daemon runs at once. A claim costs the database mostly per
   * call (the claim lock, the look at the head of the line, the commit), not per item, and a busy
   * daemon claims about half its buffer at a time (daemon.ts). At one buffered item per slot, two
   * daemons of 10 running no-op items claimed about 8 items per call and PostgreSQL spent about
   * 490 µs per item; at three, about 16 and 300 µs. Four drained fastest, about 30% faster than
   * one, and more gained nothing (test/bench/queue.bench.ts). The buffer still asks only for
   * what the daemon starts within a second, so slow items are not held back from other daemons.
   */
  prefetchPerSlot: 4,
  leaseMs: 30_000,
  pollIntervalMs: 1000,
  retentionMs: 7 * 86_400_000,
  drainMs: 10_000,
  syncTimeLimitMs: 30_000,
  heartbeatMs: 10_000,
});

/** Most items SYNCLINE_PREFETCH may ask a daemon to hold ahead, and the most it holds by default. */
const maxPrefetch = 1000;

/** The prefetch of a daemon running `concurrency` items at once, unless SYNCLINE_PREFETCH says otherwise. */
export function defaultPrefetch(concurrency: number): number {
  return Math.min(maxPrefetch, concurrency * queueDefaults.prefetchPerSlot);
}

export function queueSettings(
  flags: QueueFlags,
  env: Readonly<Record<string, string | undefined>> = process.env,
  baseDirectory = process.cwd(),
): QueueSettings {
  let database: DatabaseLocation;
  try {
    database = databaseSetting(flags.db, env, baseDirectory);
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new SettingsError(error.message);
    throw error;
  }
  const concurrency = flags.concurrency ?? set(env.SYNCLINE_CONCURRENCY);
  const duration = (name: string, fallback: number, minimumMs: number): number => {
    const text = set(env[name]);
    return text === undefined ? fallback : parseSettingDuration(text, name, minimumMs);
  };
  const leaseMs = duration('SYNCLINE_LEASE', queueDefaults.leaseMs, 1000);
  const itemsAtOnce =
    concurrency === undefined
      ? queueDefaults.concurrency
      : parseConcurrency(concurrency, flags.concurrency !== undefined ? '--concurrency' : 'SYNCLINE_CONCURRENCY');
  const prefetch = set(env.SYNCLINE_PREFETCH);
  return {
    database,
    concurrency: itemsAtOnce,
    leaseMs,
    prefetch:
      prefetch === undefined
        ? defaultPrefetch(itemsAtOnce)
        : parseWholeNumber(prefetch, 'SYNCLINE_PREFETCH', 0, maxPrefetch, 'items claimed ahead'),
    pollIntervalMs: duration('SYNCLINE_POLL_INTERVAL', queueDefaults.pollIntervalMs, 10),
    retentionMs: duration('SYNCLINE_RETENTION', queueDefaults.retentionMs, 0),
    drainMs: duration('SYNCLINE_DRAIN_TIME', queueDefaults.drainMs, 0),
    syncTimeLimitMs: duration('SYNCLINE_SYNC_TIME_LIMIT', queueDefaults.syncTimeLimitMs, 0),
    heartbeatMs: duration('SYNCLINE_DAEMON_HEARTBEAT', queueDefaults.heartbeatMs, 100),
  };
}

/** Where `syncline daemon` answers /healthz, /readyz and /metrics; none unless a port is given. */
export interface ProbeSettings {
  port: number;
  host: string;
}

export interface ProbeFlags {
  httpPort?: string;
  httpHost?: string;
}

/**
 * The daemon's probe address: `--http-port`, else SYNCLINE_DAEMON_HTTP_PORT; without either,
 * undefined (nothing listens). The host as serve's (127.0.0.1 unless told): `--http-host`, else
 * SYNCLINE_DAEMON_HTTP_HOST, else SYNCLINE_HOST — so an image that sets SYNCLINE_HOST=0.0.0.0 for
 * its API processes has its workers' probes reachable too.
 */
export function probeSettings(
  flags: ProbeFlags,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ProbeSettings | undefined {
  const port = flags.httpPort ?? set(env.SYNCLINE_DAEMON_HTTP_PORT);
  if (port === undefined) {
    if (flags.httpHost !== undefined)
      throw new SettingsError('--http-host needs --http-port (or SYNCLINE_DAEMON_HTTP_PORT): the probes listen only on a port given');
    return undefined;
  }
  return {
    port: parsePort(port.trim(), flags.httpPort !== undefined ? '--http-port' : 'SYNCLINE_DAEMON_HTTP_PORT'),
    host: flags.httpHost ?? set(env.SYNCLINE_DAEMON_HTTP_HOST) ?? set(env.SYNCLINE_HOST) ?? defaults.host,
  };
}

/**
 * What connections are given: the definitions directory, from which relative paths in connection
 * settings are resolved, and the directories file Systems may reach — SYNCLINE_FILE_ROOTS, a list
 * separated like PATH (':' on Linux and macOS, ';' on Windows), relative entries taken from the
 * working directory; unset, the definitions directory alone.
 */
export function connectionContext(
  definitionsDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  workingDirectory = process.cwd(),
): ConnectionContext {
  const baseDirectory = resolve(workingDirectory, definitionsDir);
  const roots = set(env.SYNCLINE_FILE_ROOTS)
    ?.split(delimiter)
    .map((root) => root.trim())
    .filter((root) => root !== '')
    .map((root) => resolve(workingDirectory, root));
  // Unset, the connector's own default applies (the definitions directory): one place says it.
  return roots === undefined || roots.length === 0 ? { baseDirectory } : { baseDirectory, fileRoots: roots };
}

/** An empty variable counts as unset, as for SYNCLINE_DB. */
function set(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function parseConcurrency(text: string, source: string): number {
  return parseWholeNumber(text, source, 1, 1000, 'items run at once');
}

function parseWholeNumber(text: string, source: string, min: number, max: number, meaning: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < min || value > max)
    throw new SettingsError(`${source} must be a whole number from ${min} to ${max} (${meaning}), not '${text}'`);
  return value;
}

/** A duration as definitions write it (`500ms`, `30s`, `1h30m`), or a bare number of milliseconds. */
function parseSettingDuration(text: string, source: string, minimumMs: number): number {
  const trimmed = text.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) : parseDuration(trimmed);
  if (ms === undefined)
    throw new SettingsError(`${source} must be a duration such as 500ms, 30s, 15m, 2h or 7d (or a number of milliseconds), not '${text}'`);
  if (ms < minimumMs) throw new SettingsError(`${source} must be at least ${minimumMs}ms, not '${text}'`);
  return ms;
}
