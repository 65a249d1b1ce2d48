/**
 * Queue items (DESIGN §4, §6). Indexes serve the queue operations: claiming
 * (status, run_after, created_at), reaping (status, lease_until), a worker's own items
 * (locked_by), pruning (status, finished_at) and listing a sync's items (process_id, created_at).
 * `slot_key` is unique (NULLs allowed many times), so a schedule slot is enqueued once across
 * all processes.
 */
import type { Knex } from 'knex';
import { dialectOfKnex, jsonColumn, tableOptions, timestampColumn } from './column-types.js';
import type { Migration } from './migration.js';

export const queueItems: Migration = {
  name: '001-queue-items',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.createTable('queue_items', (table) => {
      tableOptions(table, dialect);
      table.uuid('id').notNullable().primary();
      table.string('process_id', 128).notNullable();
      table.string('start_type', 16).notNullable();
      table.text('source_id').nullable();
      table.text('where_clause').nullable();
      jsonColumn(table, 'action_params', dialect).nullable();
      table.string('status', 16).notNullable();
      table.integer('attempts').notNullable().defaultTo(0);
      table.integer('max_attempts').notNullable().defaultTo(1);
      timestampColumn(table, 'run_after', dialect).notNullable();
      table.string('locked_by', 200).nullable();
      timestampColumn(table, 'lease_until', dialect).nullable();
      timestampColumn(table, 'created_at', dialect).notNullable();
      timestampColumn(table, 'started_at', dialect).nullable();
      timestampColumn(table, 'finished_at', dialect).nullable();
      jsonColumn(table, 'statistics', dialect).nullable();
      jsonColumn(table, 'errors', dialect).notNullable();
      table.string('slot_key', 255).nullable().unique({ indexName: 'queue_items_slot_key_unique' });
      // A table-level check: MariaDB does not accept a named check on a column.
      table.check('?? in (?, ?, ?, ?)', ['status', 'Pending', 'InProgress', 'Complete', 'Failed'], 'queue_items_status_check');
      table.index(['status', 'run_after', 'created_at'], 'queue_items_claim');
      table.index(['status', 'lease_until'], 'queue_items_reap');
      table.index(['locked_by'], 'queue_items_locked_by');
      table.index(['status', 'finished_at'], 'queue_items_prune');
      table.index(['process_id', 'created_at'], 'queue_items_process');
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('queue_items');
  },
};
