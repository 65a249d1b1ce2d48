/**
 * PostgreSQL: the daemon's claim as one function, so a claim is one statement and one round trip
 * instead of four (BEGIN, the claim lock, the UPDATE, COMMIT), and its plan is kept by PL/pgSQL
 * for the session instead of being made again for every claim. What it does is queue/claim.ts's
 * claim, unchanged: the claim lock first, then — in a statement whose snapshot is taken after the
 * lock is granted, as PL/pgSQL takes one per statement under READ COMMITTED — the same choice of
 * due items within their concurrency limits. The claim's time is the caller's: a time it gives
 * (p_add_wait false), or its clock's now plus however long the claim waited for the lock (measured
 * by the server, so the two clocks are never compared).
 *
 * The query is the text of queue/claim.ts's claimableQuery, with its values named; a test
 * (queue-claim-function.test.ts) fails when the two differ, so a change to the claim comes with a
 * new migration that replaces this function. Other engines claim as before; nothing to create.
 */
import type { Knex } from 'knex';
import { dialectOfKnex } from './column-types.js';
import type { Migration } from './migration.js';

/** The choice of claimable items, as in queue/claim.ts, for `p_limit` items at `v_now`. */
export const claimFunctionChoice = `
  WITH busy AS MATERIALIZED (SELECT concurrency_key AS busy_key, COUNT(*) AS running FROM queue_items
                 WHERE status = 'InProgress' AND concurrency_key IS NOT NULL
                 GROUP BY concurrency_key),
       head AS (SELECT q.id, q.run_after, q.created_at, q.concurrency_key, q.concurrency_limit, COALESCE(busy.running, 0) AS running
                  FROM queue_items q LEFT JOIN busy ON busy.busy_key = q.concurrency_key
                 WHERE q.status = 'Pending' AND q.run_after <= v_now AND q.concurrency_key IS NOT NULL
                   AND COALESCE(busy.running, 0) < q.concurrency_limit
                 ORDER BY q.run_after, q.created_at
                 LIMIT p_head)
  SELECT free.id, free.run_after, free.created_at FROM (
         SELECT id, run_after, created_at FROM queue_items
          WHERE status = 'Pending' AND run_after <= v_now AND concurrency_key IS NULL
          ORDER BY run_after, created_at LIMIT p_limit) AS free
  UNION ALL
  SELECT ranked.id, ranked.run_after, ranked.created_at FROM (
         SELECT id, run_after, created_at, running, concurrency_limit,
                ROW_NUMBER() OVER (PARTITION BY concurrency_key ORDER BY run_after, created_at, id) AS place
           FROM head) AS ranked
   WHERE ranked.place + ranked.running <= ranked.concurrency_limit
  ORDER BY run_after, created_at
  LIMIT p_limit`;

const createFunction = `
CREATE OR REPLACE FUNCTION syncline_claim(p_worker text, p_now timestamptz, p_add_wait boolean, p_lease_ms integer, p_limit integer, p_head integer)
RETURNS SETOF queue_items
LANGUAGE plpgsql
AS $claim$
DECLARE
  v_now timestamptz;
BEGIN
  PERFORM name FROM queue_locks WHERE name = 'claim' FOR UPDATE;
  v_now := CASE WHEN p_add_wait THEN p_now + (clock_timestamp() - statement_timestamp()) ELSE p_now END;
  RETURN QUERY
    UPDATE queue_items
       SET status = 'InProgress', locked_by = p_worker, lease_until = v_now + p_lease_ms * interval '1 millisecond',
           started_at = v_now, attempts = attempts + 1
     WHERE status = 'Pending' AND id = ANY(ARRAY(SELECT due.id FROM (${claimFunctionChoice}) AS due))
    RETURNING *;
END
$claim$`;

export const queueClaimFunction: Migration = {
  name: '012-queue-claim-function',
  async up(knex: Knex) {
    if (dialectOfKnex(knex) === 'postgres') await knex.raw(createFunction);
  },
  async down(knex: Knex) {
    if (dialectOfKnex(knex) === 'postgres')
      await knex.raw('DROP FUNCTION IF EXISTS syncline_claim(text, timestamptz, boolean, integer, integer, integer)');
  },
};
