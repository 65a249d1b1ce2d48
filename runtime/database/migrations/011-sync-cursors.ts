/**
 * The high-water mark of each sync with a cursor (runtime/sync/cursor-marks.ts): the value the
 * next incremental run reads past, as text (ISO 8601 for DateTime, `YYYY-MM-DD` for Date, the
 * digits of an Integer, which may exceed a double). `field` and `kind` say what the mark is of: a
 * sync whose cursor moved to another field, or changed type, starts over with a full run rather
 * than compare values of two fields.
 */
import type { Knex } from 'knex';
import { dialectOfKnex, tableOptions, timestampColumn } from './column-types.js';
import type { Migration } from './migration.js';

export const syncCursors: Migration = {
  name: '011-sync-cursors',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.createTable('sync_cursors', (table) => {
      tableOptions(table, dialect);
      table.string('sync_id', 128).notNullable().primary();
      table.string('field', 255).notNullable();
      table.string('kind', 16).notNullable();
      table.string('mark', 64).notNullable();
      timestampColumn(table, 'updated_at', dialect).notNullable();
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('sync_cursors');
  },
};
