/**
 * One row that readiness rewrites now and then (write-probe.ts): a read cannot tell that the
 * runtime database takes no writes (a full disk, a read-only standby), only a write can. The row
 * is upserted by the probe, so nothing is inserted here; `probed_by` says which process wrote last.
 */
import type { Knex } from 'knex';
import { dialectOfKnex, tableOptions, timestampColumn } from './column-types.js';
import type { Migration } from './migration.js';

export const writeProbe: Migration = {
  name: '007-write-probe',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.createTable('write_probe', (table) => {
      tableOptions(table, dialect);
      table.integer('id').notNullable().primary();
      timestampColumn(table, 'probed_at', dialect).notNullable();
      table.string('probed_by', 128).notNullable();
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('write_probe');
  },
};
