/**
 * The record store (DESIGN §7): records a webhook received, each under a GUID, read by a
 * record-store sync in arrival order ((sync_id, created_at, guid) pages through them) and deleted
 * by the flow that used them.
 */
import type { Knex } from 'knex';
import { dialectOfKnex, jsonColumn, tableOptions, timestampColumn } from './column-types.js';
import type { Migration } from './migration.js';

export const recordStore: Migration = {
  name: '002-record-store',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.createTable('record_store', (table) => {
      tableOptions(table, dialect);
      table.uuid('guid').notNullable().primary();
      table.string('sync_id', 128).notNullable();
      jsonColumn(table, 'record', dialect).notNullable();
      timestampColumn(table, 'created_at', dialect).notNullable();
      table.index(['sync_id', 'created_at', 'guid'], 'record_store_sync');
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('record_store');
  },
};
