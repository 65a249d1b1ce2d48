/**
 * What a sync's high-water mark was read from (runtime/sync/cursor-marks.ts): a digest of the
 * sync's source — its system, object, query or record store, and `where`. A mark read past in one
 * source says nothing of another: a sync moved to another table, or given a wider `where`, would
 * otherwise skip every record below the old mark. A run whose source differs starts over with a
 * full read.
 *
 * NULL for marks stored before this migration: they are taken as of the current source (an
 * upgrade does not start every sync over), and the next mark stored records it.
 */
import type { Knex } from 'knex';
import type { Migration } from './migration.js';

export const cursorSources: Migration = {
  name: '014-cursor-sources',
  async up(knex: Knex) {
    await knex.schema.alterTable('sync_cursors', (table) => {
      table.string('source', 64).nullable();
    });
  },
  async down(knex: Knex) {
    await knex.schema.alterTable('sync_cursors', (table) => {
      table.dropColumn('source');
    });
  },
};
