/**
 * Resolving the {system_key} and {object_type} of a connection route for the calling client: the
 * scope first, then the allow-list (403 — so a client never learns which systems exist outside
 * its list), then existence (404 listing what the client may use).
 */
import type { Context } from 'koa';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { Connection, ObjectDescription } from '../../connectors/connection.js';
import type { SystemEntry, Snapshot } from '../../definitions/snapshot.js';
import type { ApiScope } from '../../definitions/types.js';
import { HttpProblem } from '../errors.js';
import { requireScope, requireSystem, type Principal } from './auth.js';

export interface SystemTarget {
  principal: Principal;
  system: SystemEntry;
  connection: Connection;
}

export async function resolveSystem(ctx: Context, connections: ConnectionProvider, key: string, scope: ApiScope): Promise<SystemTarget> {
  const principal = requireScope(ctx, scope);
  const snapshot = ctx.state.snapshot as Snapshot;
  const system = findIgnoringCase(snapshot.systems, key);
  requireSystem(principal, system?.definition.id ?? key);
  if (!system) {
    const visible = [...snapshot.systems.keys()].filter((id) => !principal.systems || principal.systems.has(id));
    throw new HttpProblem('unknown-system', `There is no system '${key}'. Systems: ${visible.join(', ') || 'none'}.`);
  }
  return { principal, system, connection: await connections.get(system.definition) };
}

export function resolveObject(target: SystemTarget, name: string): ObjectDescription {
  const objects = target.system.definition.objects;
  const match = Object.hasOwn(objects, name) ? name : Object.keys(objects).find((o) => o.toLowerCase() === name.toLowerCase());
  if (!match) {
    throw new HttpProblem(
      'unknown-object',
      `System ${target.system.definition.id} has no object '${name}'. Objects: ${Object.keys(objects).join(', ') || 'none'}.`,
    );
  }
  return target.connection.describe(match);
}

/** Exact match first; otherwise a unique case-insensitive one (routes are case-insensitive). */
export function findIgnoringCase<V>(map: ReadonlyMap<string, V>, key: string): V | undefined {
  const exact = map.get(key);
  if (exact) return exact;
  const lower = key.toLowerCase();
  const candidates = [...map.keys()].filter((k) => k.toLowerCase() === lower);
  return candidates.length === 1 ? map.get(candidates[0]!) : undefined;
}
