/**
 * The runtime's connections, one per system definition: every route, sync and webhook using a
 * system shares its Connection (and so its database pool). A connection is keyed by the system's
 * id and a digest of its whole definition, so a reload that changes a system gets a new connection
 * while requests still running on the old snapshot keep theirs until `retain` closes it.
 *
 * Usage: `get(system)` wherever a connection is needed; after each successful reload
 * `retain(snapshot systems)`, which closes the connections of systems that changed or disappeared;
 * `closeAll()` on shutdown. Closing waits for statements in progress on that connection.
 */
import { createHash } from 'node:crypto';
import type { SystemDefinition } from '../definitions/types.js';
import type { Connection, ConnectionContext, ConnectorModule } from './connection.js';
import { loadConnector } from './index.js';

/** Where the runtime gets a system's connection: the ConnectionPool, or a stand-in in tests. */
export interface ConnectionProvider {
  /** The shared connection of a system (created on first use, replaced when the system changes). */
  get(system: SystemDefinition): Promise<Connection>;
}

interface Entry {
  systemId: string;
  connection: Promise<Connection>;
}

/** JSON with object keys sorted, so equal definitions give equal text whatever their key order. */
function canonicalJson(data: unknown): string {
  if (Array.isArray(data)) return `[${data.map(canonicalJson).join(',')}]`;
  if (data !== null && typeof data === 'object') {
    const keys = Object.keys(data).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((data as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(data) ?? 'null';
}

/** Digests by definition object: snapshot definitions are frozen, so one is computed once, not per request. */
const digests = new WeakMap<SystemDefinition, string>();

/** SHA-256 over a system definition: equal digests, equal definitions. */
export function systemDigest(system: SystemDefinition): string {
  let digest = digests.get(system);
  if (digest === undefined) {
    digest = createHash('sha256').update(canonicalJson(system)).digest('hex');
    if (Object.isFrozen(system)) digests.set(system, digest);
  }
  return digest;
}

export class ConnectionPool implements ConnectionProvider {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly context: ConnectionContext,
    private readonly load: (connector: string) => Promise<ConnectorModule | undefined> = loadConnector,
  ) {}

  /** The shared connection of this system definition, created on first use. */
  get(system: SystemDefinition): Promise<Connection> {
    const key = `${system.id}\u0000${systemDigest(system)}`;
    const existing = this.entries.get(key);
    if (existing !== undefined) return existing.connection;
    const connection = this.load(system.connector).then((module) => {
      if (module === undefined) throw new Error(`system '${system.id}': no connector is named '${system.connector}'`);
      return module.createConnection(system, this.context);
    });
    this.entries.set(key, { systemId: system.id, connection });
    // A failed load is not cached: the next get tries again.
    connection.catch(() => {
      if (this.entries.get(key)?.connection === connection) this.entries.delete(key);
    });
    return connection;
  }

  /** Closes the connections of systems not among `systems` (changed or removed by a reload). */
  async retain(systems: Iterable<SystemDefinition>): Promise<void> {
    const keep = new Set([...systems].map((system) => `${system.id}\u0000${systemDigest(system)}`));
    const stale = [...this.entries.entries()].filter(([key]) => !keep.has(key));
    for (const [key] of stale) this.entries.delete(key);
    await Promise.all(stale.map(([, entry]) => closeEntry(entry)));
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map(closeEntry));
  }

  /** Ids of the systems that currently have a connection (for /readyz and tests). */
  systemIds(): string[] {
    return [...new Set([...this.entries.values()].map((entry) => entry.systemId))].sort();
  }
}

async function closeEntry(entry: Entry): Promise<void> {
  const connection = await entry.connection.catch(() => undefined);
  await connection?.close();
}
