/**
 * Runtime settings: flags first, then environment variables, then defaults — the defaults live
 * here and nowhere else.
 */
import { parseDuration } from '../definitions/duration.js';
import { parseSize } from '../definitions/size.js';
import { databaseSetting, DatabaseUrlError, type DatabaseLocation } from './database/database-url.js';

export interface ServeSettings {
  definitions: string;
  port: number;
  host: string;
  /** Largest request body, in bytes. */
  bodyLimit: number;
}

export interface ServeFlags {
  definitions?: string;
  port?: string;
  host?: string;
  bodyLimit?: string;
}

export const defaults: Readonly<ServeSettings> = Object.freeze({
  definitions: 'examples/quickstart',
  port: 3000,
  host: '127.0.0.1',
  bodyLimit: 1024 * 1024,
});

export class SettingsError extends Error {}

export function serveSettings(flags: ServeFlags, env: Readonly<Record<string, string | undefined>> = process.env): ServeSettings {
  const port = flags.port ?? env.SYNCLINE_PORT;
  const bodyLimit = flags.bodyLimit ?? env.SYNCLINE_BODY_LIMIT;
  return {
    definitions: flags.definitions ?? env.SYNCLINE_DEFINITIONS ?? defaults.definitions,
    port: port === undefined ? defaults.port : parsePort(port, flags.port !== undefined ? '--port' : 'SYNCLINE_PORT'),
    host: flags.host ?? env.SYNCLINE_HOST ?? defaults.host,
    bodyLimit: bodyLimit === undefined ? defaults.bodyLimit : sizeSetting(bodyLimit, flags.bodyLimit !== undefined ? '--body-limit' : 'SYNCLINE_BODY_LIMIT'),
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
}

export interface QueueFlags {
  db?: string;
  concurrency?: string;
}

export const queueDefaults = Object.freeze({
  concurrency: 4,
  leaseMs: 30_000,
  pollIntervalMs: 1000,
  retentionMs: 7 * 86_400_000,
  drainMs: 10_000,
  syncTimeLimitMs: 30_000,
});

export function queueSettings(flags: QueueFlags, env: Readonly<Record<string, string | undefined>> = process.env, baseDirectory = process.cwd()): QueueSettings {
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
  return {
    database,
    concurrency: concurrency === undefined ? queueDefaults.concurrency : parseConcurrency(concurrency, flags.concurrency !== undefined ? '--concurrency' : 'SYNCLINE_CONCURRENCY'),
    leaseMs,
    pollIntervalMs: duration('SYNCLINE_POLL_INTERVAL', queueDefaults.pollIntervalMs, 10),
    retentionMs: duration('SYNCLINE_RETENTION', queueDefaults.retentionMs, 0),
    drainMs: duration('SYNCLINE_DRAIN_TIME', queueDefaults.drainMs, 0),
    syncTimeLimitMs: duration('SYNCLINE_SYNC_TIME_LIMIT', queueDefaults.syncTimeLimitMs, 0),
  };
}

/** An empty variable counts as unset, as for SYNCLINE_DB. */
function set(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function parseConcurrency(text: string, source: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > 1000) throw new SettingsError(`${source} must be a whole number from 1 to 1000 (items run at once), not '${text}'`);
  return value;
}

/** A duration as definitions write it (`500ms`, `30s`, `1h30m`), or a bare number of milliseconds. */
function parseSettingDuration(text: string, source: string, minimumMs: number): number {
  const trimmed = text.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) : parseDuration(trimmed);
  if (ms === undefined) throw new SettingsError(`${source} must be a duration such as 500ms, 30s, 15m, 2h or 7d (or a number of milliseconds), not '${text}'`);
  if (ms < minimumMs) throw new SettingsError(`${source} must be at least ${minimumMs}ms, not '${text}'`);
  return ms;
}
