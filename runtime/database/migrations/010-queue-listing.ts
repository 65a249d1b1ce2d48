/**
 * The queue list of the HTTP interface (`GET /api/queue`) and retries of failed items
 * (`POST /api/queue/{id}/retry`).
 *
 * - `retry_of`: the id of the Failed item a retry was enqueued for; NULL for every other item and
 *   for rows written before this migration. A retry is a new item, so the failed one keeps its
 *   history and the new one says where it came from. Nullable without a default, so adding it
 *   changes no row (no table rewrite on PostgreSQL or MariaDB).
 * - The list is newest first, paged by the position (created_at, id) of the last item shown
 *   (a keyset: WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?). Two
 *   indexes end in exactly that order, so a page is a range scan read backwards, whatever the
 *   page: `queue_items_list` (created_at, id) for the whole queue and the status and start type
 *   filters (checked on the rows read in that order), and `queue_items_process_list`
 *   (process_id, created_at, id) for one sync or an allow-list's syncs. The latter replaces
 *   `queue_items_process` (process_id, created_at), of which it is an extension: every query
 *   that one served, it serves.
 */
import type { Knex } from 'knex';
import type { Migration } from './migration.js';

export const queueListing: Migration = {
  name: '010-queue-listing',
  async up(knex: Knex) {
    await knex.schema.alterTable('queue_items', (table) => {
      table.uuid('retry_of').nullable();
      table.index(['created_at', 'id'], 'queue_items_list');
      table.index(['process_id', 'created_at', 'id'], 'queue_items_process_list');
    });
    await knex.schema.alterTable('queue_items', (table) => {
      table.dropIndex(['process_id', 'created_at'], 'queue_items_process');
    });
  },
  async down(knex: Knex) {
    await knex.schema.alterTable('queue_items', (table) => {
      table.index(['process_id', 'created_at'], 'queue_items_process');
    });
    await knex.schema.alterTable('queue_items', (table) => {
      table.dropIndex(['process_id', 'created_at', 'id'], 'queue_items_process_list');
      table.dropIndex(['created_at', 'id'], 'queue_items_list');
      table.dropColumn('retry_of');
    });
  },
};
