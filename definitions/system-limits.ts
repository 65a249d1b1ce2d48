/**
 * A System's `limits:` as numbers (milliseconds, rows, bytes), with the names and texts messages
 * quote. The defaults are those of system.schema.json — loading fills them in there, and a
 * definition built in code (without `limits`) gets the same ones here, read from the schema.
 */
import { parseDuration } from './duration.js';
import { readKindSchema } from './schema/kind-schemas.js';
import { formatSize, parseSize } from './size.js';
import type { SystemDefinition, SystemLimitsDefinition } from './types.js';

/** Longest timer Node keeps (and PostgreSQL's largest statement_timeout): 2^31 - 1 ms, about 24.8 days. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface SystemLimits {
  statementTimeoutMs: number;
  /** As written, for messages: `30s`. */
  statementTimeout: string;
  queryRows: number;
  queryBytes: number;
  /** As a person reads it, for messages: `32 MiB`. */
  queryBytesText: string;
  concurrentQueries: number;
  queryWaitMs: number;
  /** As written, for messages: `5s`. */
  queryWait: string;
}

let schemaDefaults: Required<SystemLimitsDefinition> | undefined;

function defaults(): Required<SystemLimitsDefinition> {
  if (schemaDefaults === undefined) {
    const properties = (readKindSchema('System') as { properties: { limits: { properties: Record<string, { default: unknown }> } } })
      .properties.limits.properties;
    schemaDefaults = Object.freeze(
      Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, schema.default])),
    ) as Required<SystemLimitsDefinition>;
  }
  return schemaDefaults;
}

const cache = new WeakMap<SystemDefinition, SystemLimits>();

/** The limits of `system`; its definition was validated, so every value parses. */
export function systemLimits(system: SystemDefinition): SystemLimits {
  const cached = cache.get(system);
  if (cached !== undefined) return cached;
  const given = { ...defaults(), ...system.limits };
  const statementTimeoutMs = Math.min(parseDuration(given.statementTimeout) ?? 0, MAX_TIMEOUT_MS);
  const queryBytes = parseSize(given.queryBytes)!;
  const limits: SystemLimits = Object.freeze({
    statementTimeoutMs,
    statementTimeout: given.statementTimeout,
    queryRows: given.queryRows,
    queryBytes,
    queryBytesText: formatSize(queryBytes),
    concurrentQueries: given.concurrentQueries,
    queryWaitMs: Math.min(parseDuration(given.queryWait) ?? 0, MAX_TIMEOUT_MS),
    queryWait: given.queryWait,
  });
  cache.set(system, limits);
  return limits;
}
