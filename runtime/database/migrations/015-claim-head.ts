/**
 * PostgreSQL: the daemon's claim (`syncline_claim`, migration 013's, replaced) first ranks a head
 * of the line twice the claim's size, and only when that yields fewer items than asked ranks the
 * full head of queue/claim.ts (headSize: ten times the claim, at least 100).
 *
 * The full head is there for keys near their limit: their items beyond the room left fill the
 * head without qualifying, and the items behind them would wait for another claim. But a busy
 * daemon's claim mostly finds room for everything at the front of the line, and then ranked ten
 * times the rows it took: a claim of 20 read, sorted and numbered about 190 rows, two thirds of
 * its time — and of the database's work per item, the claim being most of it.
 *
 * What is chosen does not change. The items a head qualifies (each key's first items up to its
 * room, by place in line) keep their places in any longer head, which only adds qualified items
 * behind them; so when the short head yields as many items as asked, they are the ones the full
 * head would choose first. When it yields fewer — a short line, or keys near their limit — the
 * full head is ranked as before. The choice and the UPDATE are two statements now: other claims
 * wait for the claim lock meanwhile, and the UPDATE still tests that each chosen item is Pending
 * (a cancel may come between the two, as it could between the choice and the update before).
 *
 * Other engines claim with claim.ts's single statement, as before.
 */
import type { Knex } from 'knex';
import { dialectOfKnex } from './column-types.js';
import { claimFunctionChoice } from './012-queue-claim-function.js';
import { createClaimFunction } from './013-queue-lookups.js';
import type { Migration } from './migration.js';

/** Migration 012's choice, ranking a head of `head` rows (a value's name) instead of p_head. */
export function claimChoiceWithHead(head: string): string {
  const parts = claimFunctionChoice.split('LIMIT p_head');
  if (parts.length !== 2) throw new Error('the claim choice names its head size once');
  return parts.join(`LIMIT ${head}`);
}

/** The UPDATE of migration 013's function, of the ids chosen beforehand. */
export const claimChosenUpdate = `
  UPDATE queue_items SET status = 'InProgress', locked_by = p_worker, lease_until = v_lease_until, started_at = v_now, attempts = attempts + 1
   WHERE (status = 'Pending') IS TRUE AND id = ANY(v_chosen)
  RETURNING *`;

const createFunction = `
CREATE OR REPLACE FUNCTION syncline_claim(p_worker text, p_now timestamptz, p_add_wait boolean, p_lease_ms integer, p_limit integer, p_head integer)
RETURNS SETOF queue_items
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $claim$
DECLARE
  v_now timestamptz;
  v_lease_until timestamptz;
  v_short_head integer := LEAST(p_head, 2 * p_limit);
  v_chosen uuid[];
BEGIN
  PERFORM name FROM queue_locks WHERE name = 'claim' FOR UPDATE;
  v_now := CASE WHEN p_add_wait THEN p_now + (clock_timestamp() - statement_timestamp()) ELSE p_now END;
  v_lease_until := v_now + p_lease_ms * interval '1 millisecond';
  v_chosen := ARRAY(SELECT due.id FROM (${claimChoiceWithHead('v_short_head')}) AS due);
  IF cardinality(v_chosen) < p_limit AND v_short_head < p_head THEN
    v_chosen := ARRAY(SELECT due.id FROM (${claimFunctionChoice}) AS due);
  END IF;
  RETURN QUERY ${claimChosenUpdate};
END
$claim$`;

export const claimHead: Migration = {
  name: '015-claim-head',
  async up(knex: Knex) {
    if (dialectOfKnex(knex) === 'postgres') await knex.raw(createFunction);
  },
  async down(knex: Knex) {
    if (dialectOfKnex(knex) === 'postgres') await knex.raw(createClaimFunction);
  },
};
