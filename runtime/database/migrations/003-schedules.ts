/**
 * The last slot each schedule enqueued. The unique slot key on queue items stops two processes
 * from enqueuing the same slot while its item exists; this row also remembers slots whose items
 * were pruned since, so a restarted scheduler never runs an old slot again.
 */
import type { Knex } from 'knex';
import { dialectOfKnex, tableOptions, timestampColumn } from './column-types.js';
import type { Migration } from './migration.js';

export const schedules: Migration = {
  name: '003-schedules',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.createTable('schedules', (table) => {
      tableOptions(table, dialect);
      table.string('process_id', 128).notNullable().primary();
      timestampColumn(table, 'last_slot_at', dialect).notNullable();
      table.uuid('last_item_id').nullable();
      timestampColumn(table, 'updated_at', dialect).notNullable();
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('schedules');
  },
};
