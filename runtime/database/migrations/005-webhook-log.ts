/**
 * The webhook call log (DESIGN §8): one row per call with its time, status, duration, queue item
 * and ticker messages; the payload and response body only for webhooks that log payloads.
 *
 * Indexes serve the log's three operations: listing a webhook's entries newest first with keyset
 * paging (webhook_id, at, id); pruning a webhook's unpinned entries past its retention
 * (webhook_id, pinned, at); and a pin filter for the test dialog's list of pins (the same index).
 * Ids are the call ids (UUIDs), kept as text of up to 64 characters so a caller-chosen call id of
 * another shape still fits.
 */
import type { Knex } from 'knex';
import { dialectOfKnex, jsonColumn, tableOptions, timestampColumn } from './column-types.js';
import type { Migration } from './migration.js';

export const webhookLog: Migration = {
  name: '005-webhook-log',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.createTable('webhook_log', (table) => {
      tableOptions(table, dialect);
      table.string('id', 64).notNullable().primary();
      table.string('webhook_id', 128).notNullable();
      timestampColumn(table, 'at', dialect).notNullable();
      table.string('method', 16).notNullable();
      table.integer('status').notNullable();
      table.integer('duration_ms').notNullable();
      table.string('queue_item_id', 64).nullable();
      // How the call came: null for a caller of the webhook URL, `test` or `replay` from the console.
      table.string('origin', 16).nullable();
      table.string('replay_of', 64).nullable();
      table.boolean('pinned').notNullable().defaultTo(false);
      jsonColumn(table, 'ticker', dialect).notNullable();
      // Both null unless the webhook logs payloads (logPayload).
      jsonColumn(table, 'payload', dialect).nullable();
      jsonColumn(table, 'response', dialect).nullable();
      // The list shows whether an entry can be replayed without reading its payload.
      table.boolean('payload_truncated').notNullable().defaultTo(false);
      table.index(['webhook_id', 'at', 'id'], 'webhook_log_list');
      table.index(['webhook_id', 'pinned', 'at'], 'webhook_log_prune');
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('webhook_log');
  },
};
