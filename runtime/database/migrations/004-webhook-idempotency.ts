/**
 * Idempotency keys of webhook calls (`idempotency` setting): one row per webhook and key, so
 * every process agrees whether a key was seen. The primary key makes a concurrent second claim
 * fail, which is how a duplicate that arrives while the first call runs is told apart (409).
 *
 * Keys are stored as their SHA-256 (hex): a caller's key may be long or personal data.
 * `expires_at` is when the row stops counting: the end of the window for a finished call, the
 * end of a lease for a running one (so a process that died mid-call does not block its key for
 * the whole window). The answer is kept to repeat it: status, Location, body. `claim_id` names
 * the call that holds the row, so a call whose lease ran out cannot finish or free a later
 * call's claim of the same key.
 */
import type { Knex } from 'knex';
import { dialectOfKnex, jsonColumn, tableOptions, timestampColumn } from './column-types.js';
import type { Migration } from './migration.js';

export const webhookIdempotency: Migration = {
  name: '004-webhook-idempotency',
  async up(knex: Knex) {
    const dialect = dialectOfKnex(knex);
    await knex.schema.createTable('webhook_idempotency', (table) => {
      tableOptions(table, dialect);
      table.string('webhook_id', 128).notNullable();
      table.string('key_hash', 64).notNullable();
      table.string('state', 16).notNullable();
      table.string('claim_id', 36).notNullable();
      jsonColumn(table, 'answer', dialect).nullable();
      timestampColumn(table, 'created_at', dialect).notNullable();
      timestampColumn(table, 'expires_at', dialect).notNullable();
      table.primary(['webhook_id', 'key_hash']);
      table.index(['webhook_id', 'expires_at'], 'webhook_idempotency_expiry');
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('webhook_idempotency');
  },
};
