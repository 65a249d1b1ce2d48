/**
 * The `connection` settings of a System on a database server (PostgreSQL, MariaDB/MySQL): either a
 * URL, or host, port, user, password and database; `pool` sizes the writes' and reads' pools.
 */
import type { SystemLimits } from '../../../definitions/system-limits.js';
import type { PoolPurpose } from './engine.js';

export interface ServerSettings {
  url?: string;
  host?: string;
  port?: number | string;
  user?: string;
  password?: string;
  database?: string;
  searchPath?: string;
  ssl?: boolean;
  pool?: { min?: number; max?: number };
}

/** The driver's connection fields when the settings name no URL. */
export function serverConnection(settings: ServerSettings): Record<string, unknown> {
  if (settings.url !== undefined) return {};
  return {
    host: settings.host,
    ...(settings.port === undefined ? {} : { port: Number(settings.port) }),
    ...(settings.user === undefined ? {} : { user: settings.user }),
    ...(settings.password === undefined ? {} : { password: settings.password }),
    database: settings.database,
  };
}

/** Sizes of a pool: `pool` of the settings; the query pool has one connection per query that may run. */
export function serverPool(settings: ServerSettings, purpose: PoolPurpose, limits: SystemLimits): { min: number; max: number } {
  const max = purpose === 'query' ? limits.concurrentQueries : (settings.pool?.max ?? 10);
  return { min: Math.min(settings.pool?.min ?? 0, max), max };
}
