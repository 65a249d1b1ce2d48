/**
 * The request id (`X-Request-Id`) of the HTTP request that started a queue item or made a webhook
 * call, so the log lines of a run — possibly in another process, a daemon's — and a call log
 * entry lead back to the request's own log lines. Only ever shown and logged: a caller chooses it,
 * so nothing is decided by it. NULL for items no request started (schedules, `syncline run`) and
 * for rows written before this migration.
 *
 * 128 characters: the longest request id the HTTP edge accepts (http/request-id.ts).
 *
 * Nullable columns without a default: adding them changes no existing row, which PostgreSQL and
 * MariaDB do without rewriting the table.
 */
import type { Knex } from 'knex';
import type { Migration } from './migration.js';

export const requestIds: Migration = {
  name: '009-request-ids',
  async up(knex: Knex) {
    await knex.schema.alterTable('queue_items', (table) => {
      table.string('request_id', 128).nullable();
    });
    await knex.schema.alterTable('webhook_log', (table) => {
      table.string('request_id', 128).nullable();
    });
  },
  async down(knex: Knex) {
    await knex.schema.alterTable('webhook_log', (table) => {
      table.dropColumn('request_id');
    });
    await knex.schema.alterTable('queue_items', (table) => {
      table.dropColumn('request_id');
    });
  },
};
