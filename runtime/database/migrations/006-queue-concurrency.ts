/**
 * Concurrency limits per sync or flow (common.schema.json $defs/concurrency; queue/claim.ts).
 *
 * - `queue_items.concurrency_key` and `concurrency_limit`: the limit an item was enqueued under —
 *   `process:<id>`, or `group:<name>` for syncs and flows sharing one — and how many items of that
 *   key may be InProgress at once. NULL: no limit (items enqueued without a policy).
 * - The index serves the claim: due Pending items of each key in line order, and InProgress
 *   items counted per key.
 * - `queue_locks`: rows that claims lock on PostgreSQL and MariaDB (`… WHERE name = 'claim' FOR
 *   UPDATE`), so the count of a key's running items a claim reads cannot change under it.
 * - Items still waiting or running from before get the default limit, one run of their process
 *   at a time: the definitions are not known here, and the default is the safe reading of them.
 */
import type { Knex } from 'knex';
import { dialectOfKnex, tableOptions } from './column-types.js';
import type { Migration } from './migration.js';

export const queueConcurrency: Migration = {
  name: '006-queue-concurrency',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.alterTable('queue_items', (table) => {
      table.string('concurrency_key', 200).nullable();
      table.integer('concurrency_limit').nullable();
      table.index(['status', 'concurrency_key', 'run_after', 'created_at'], 'queue_items_concurrency');
    });
    await knex.schema.createTable('queue_locks', (table) => {
      tableOptions(table, dialect);
      table.string('name', 64).notNullable().primary();
    });
    await knex('queue_locks').insert({ name: 'claim' });
    const key = dialect === 'mysql' ? knex.raw("CONCAT('process:', process_id)") : knex.raw("'process:' || process_id");
    await knex('queue_items')
      .whereIn('status', ['Pending', 'InProgress'])
      .whereNull('concurrency_key')
      .update({ concurrency_key: key, concurrency_limit: 1 });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('queue_locks');
    await knex.schema.alterTable('queue_items', (table) => {
      table.dropIndex(['status', 'concurrency_key', 'run_after', 'created_at'], 'queue_items_concurrency');
      table.dropColumn('concurrency_limit');
      table.dropColumn('concurrency_key');
    });
  },
};
