/**
 * The daemons at work on this database (DESIGN §10, §12): every process that runs a queue daemon
 * — `syncline daemon`, and `syncline serve` without --no-daemon — keeps one row here, so any
 * process on the database can tell which daemons run across the cluster (/readyz, /metrics)
 * without asking them.
 *
 * - `id` is the daemon's worker id, the `locked_by` of the items it holds, so an item's holder can
 *   be found among the daemons.
 * - `heartbeat_at` is when the daemon last said it is alive; `expires_at` is when it counts as
 *   gone without a further heartbeat. Each daemon writes its own expiry (a few of its heartbeat
 *   intervals), so a reader needs to know nobody's interval: a row whose expiry has passed is a
 *   daemon that stopped without saying so (killed, cut off). A clean stop deletes its row.
 * - The index serves both reads: the active daemons (`expires_at > now`) and forgetting long-gone
 *   ones (`expires_at < cutoff`).
 */
import type { Knex } from 'knex';
import { dialectOfKnex, tableOptions, timestampColumn } from './column-types.js';
import type { Migration } from './migration.js';

export const daemons: Migration = {
  name: '008-daemons',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.createTable('daemons', (table) => {
      tableOptions(table, dialect);
      table.string('id', 200).notNullable().primary();
      table.string('host', 255).notNullable();
      table.integer('pid').notNullable();
      table.string('version', 64).notNullable();
      // Which command runs the daemon: `daemon` or `serve`.
      table.string('command', 16).notNullable();
      table.integer('concurrency').notNullable();
      table.integer('running').notNullable().defaultTo(0);
      timestampColumn(table, 'started_at', dialect).notNullable();
      timestampColumn(table, 'heartbeat_at', dialect).notNullable();
      timestampColumn(table, 'expires_at', dialect).notNullable();
      table.index(['expires_at'], 'daemons_expiry');
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('daemons');
  },
};
