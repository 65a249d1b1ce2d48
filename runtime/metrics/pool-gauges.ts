/**
 * Connections, read at each scrape:
 *
 * - the runtime database's pool (Knex's tarn pool): `syncline_runtime_db_connections{state}`
 *   (`used` by a statement or transaction now, `free` idle in the pool),
 *   `syncline_runtime_db_connections_max` (the pool's size), and
 *   `syncline_runtime_db_pending_acquires` (statements waiting for a connection — above zero for
 *   long, the pool is too small or something holds its connections);
 * - `syncline_system_connections_open`: systems with an open connection (connectors'
 *   connection-pool.ts: one per system in use, reopened after a reload changes the system).
 *
 * SQLite's runtime database has one connection: `used` 1 while a statement runs, and a waiting
 * queue of statements shows as pending acquires.
 */
import { Gauge, type Registry } from 'prom-client';
import type { RuntimeDatabase } from '../database/open-database.js';

/** What the metrics read of a tarn pool (Knex's `client.pool`); absent once the database is closed. */
interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

function poolOf(db: RuntimeDatabase): TarnPool | undefined {
  return (db.knex.client as { pool?: TarnPool }).pool ?? undefined;
}

export function registerPoolGauges(registry: Registry, sources: { db: RuntimeDatabase; openSystems: () => number }): void {
  const { db } = sources;
  new Gauge({
    name: 'syncline_runtime_db_connections',
    help: 'Connections of the runtime database pool by state: used (by a statement now) or free (idle).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = poolOf(db);
      this.set({ state: 'used' }, pool?.numUsed() ?? 0);
      this.set({ state: 'free' }, pool?.numFree() ?? 0);
    },
  });
  new Gauge({
    name: 'syncline_runtime_db_connections_max',
    help: 'Most connections the runtime database pool opens.',
    registers: [registry],
    collect() {
      this.set(poolOf(db)?.max ?? 0);
    },
  });
  new Gauge({
    name: 'syncline_runtime_db_pending_acquires',
    help: 'Statements waiting for a connection of the runtime database pool.',
    registers: [registry],
    collect() {
      this.set(poolOf(db)?.numPendingAcquires() ?? 0);
    },
  });
  new Gauge({
    name: 'syncline_system_connections_open',
    help: 'Systems with an open connection (one per system in use).',
    registers: [registry],
    collect() {
      this.set(sources.openSystems());
    },
  });
}
