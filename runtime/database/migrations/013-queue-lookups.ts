/**
 * PostgreSQL: every read and write of the queue's hot path finds its rows through an index that
 * holds only rows of the state it looks for, and finds the rows it updates by their ids — so a
 * claim or an end costs the same whatever the backlog, however young the table's statistics, and
 * however many dead entries the indexes hold between two VACUUMs.
 *
 * Before, the indexes led with `status` over every row, which cost three times:
 * - The claim's unkeyed branch (`status = 'Pending' AND concurrency_key IS NULL`, almost never
 *   matching: every sync and flow has a key) walked the claim index through every Pending row to
 *   find none: 1.3 ms per claim with 4,000 waiting, growing with the backlog.
 * - With young statistics (a new table, or a burst after a quiet time, when the last ANALYZE saw
 *   no Pending row) the planner took `status = 'Pending'` for one row and found the rows to
 *   update by scanning every Pending entry instead of by id; ends did the same with InProgress.
 * - Each change of status wrote a new entry in all of them: nine index entries per update of an
 *   item, where the queue's reads need six when it is claimed and four when it ends.
 *
 * Replaced by partial indexes, each over the rows of one state (the old name where the role is
 * the same):
 *   queue_items_claim         (run_after, created_at) WHERE status = 'Pending'
 *   queue_items_claim_unkeyed (run_after, created_at) WHERE status = 'Pending' AND concurrency_key IS NULL
 *   queue_items_waiting_key   (concurrency_key)       WHERE status = 'Pending' AND concurrency_key IS NOT NULL
 *   queue_items_running_key   (concurrency_key)       WHERE status = 'InProgress' AND concurrency_key IS NOT NULL
 *   queue_items_reap          (lease_until)           WHERE status = 'InProgress'
 *   queue_items_locked_by     (locked_by)             WHERE status = 'InProgress'
 *   queue_items_prune         (finished_at)           WHERE status IN ('Complete', 'Failed')
 * (queue_items_concurrency, which served the first four, goes.) Queries name the status as a
 * literal or a bound value that PostgreSQL plans with, so each finds its index.
 *
 * The two statements a busy daemon runs most are functions, planned once per session:
 * - `syncline_claim` (migration 012's, replaced): its UPDATE tests the status with
 *   `(status = 'Pending') IS TRUE` — the same test, in a form no index can serve, so the rows
 *   are found by their primary key (queue/claim.ts, stillPending).
 * - `syncline_end` (new): the ends of attempts, one array per column (queue/complete-together.ts);
 *   planned each time as a plain statement, its planning cost as much as its work.
 * Both plan without sequential scans, since every read of theirs has its index but while the
 * table is small a scan of all of it costs the planner about as much as ten lookups by id; and
 * without bitmap scans, which read every entry the index holds, dead or not, each time, where an
 * index scan marks the dead ones it meets and skips them from then on — the running items of a
 * key, counted by every claim, had ten dead entries for each live one after a minute's work.
 *
 * Other engines keep their indexes: SQLite's queries bind the status as a parameter, which a
 * partial index cannot be matched against, and MariaDB has no partial indexes. Both serve the
 * unkeyed branch with (status, concurrency_key, …), which their planners take for it.
 */
import type { Knex } from 'knex';
import { dialectOfKnex } from './column-types.js';
import { claimFunctionChoice, queueClaimFunction } from './012-queue-claim-function.js';
import type { Migration } from './migration.js';

/** The UPDATE of queue/claim.ts's claimStatement for PostgreSQL, its values named; its choice is migration 012's, unchanged. */
export const claimFunctionUpdate = `
  UPDATE queue_items SET status = 'InProgress', locked_by = p_worker, lease_until = v_lease_until, started_at = v_now, attempts = attempts + 1
   WHERE (status = 'Pending') IS TRUE AND id = ANY(ARRAY(SELECT due.id FROM (${claimFunctionChoice}) AS due))
  RETURNING *`;

/** The claim function this migration makes (migration 015's `down` puts it back). */
export const createClaimFunction = `
CREATE OR REPLACE FUNCTION syncline_claim(p_worker text, p_now timestamptz, p_add_wait boolean, p_lease_ms integer, p_limit integer, p_head integer)
RETURNS SETOF queue_items
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $claim$
DECLARE
  v_now timestamptz;
  v_lease_until timestamptz;
BEGIN
  PERFORM name FROM queue_locks WHERE name = 'claim' FOR UPDATE;
  v_now := CASE WHEN p_add_wait THEN p_now + (clock_timestamp() - statement_timestamp()) ELSE p_now END;
  v_lease_until := v_now + p_lease_ms * interval '1 millisecond';
  RETURN QUERY ${claimFunctionUpdate};
END
$claim$`;

/** What queue/complete-together.ts's writeEnds runs: the guarded UPDATE of complete.ts, for every end given. */
export const endFunctionUpdate = `
  UPDATE queue_items AS q
     SET status = v.status, finished_at = v.finished_at, lease_until = NULL,
         started_at = COALESCE(v.started_at, q.started_at),
         statistics = COALESCE(v.statistics, q.statistics)
    FROM unnest(p_ids, p_workers, p_attempts, p_statuses, p_finished, p_started, p_statistics)
         AS v(id, locked_by, attempts, status, finished_at, started_at, statistics)
   WHERE q.id = v.id AND q.locked_by = v.locked_by AND (q.status = 'InProgress') IS TRUE
     AND (v.attempts IS NULL OR q.attempts = v.attempts)
  RETURNING q.id`;

const createEndFunction = `
CREATE OR REPLACE FUNCTION syncline_end(p_ids uuid[], p_workers text[], p_attempts integer[], p_statuses text[],
                                        p_finished timestamptz[], p_started timestamptz[], p_statistics json[])
RETURNS SETOF uuid
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $end$
BEGIN
  RETURN QUERY ${endFunctionUpdate};
END
$end$`;

const partialIndexes = [
  `CREATE INDEX queue_items_claim ON queue_items (run_after, created_at) WHERE status = 'Pending'`,
  `CREATE INDEX queue_items_claim_unkeyed ON queue_items (run_after, created_at) WHERE status = 'Pending' AND concurrency_key IS NULL`,
  `CREATE INDEX queue_items_waiting_key ON queue_items (concurrency_key) WHERE status = 'Pending' AND concurrency_key IS NOT NULL`,
  `CREATE INDEX queue_items_running_key ON queue_items (concurrency_key) WHERE status = 'InProgress' AND concurrency_key IS NOT NULL`,
  `CREATE INDEX queue_items_reap ON queue_items (lease_until) WHERE status = 'InProgress'`,
  `CREATE INDEX queue_items_locked_by ON queue_items (locked_by) WHERE status = 'InProgress'`,
  `CREATE INDEX queue_items_prune ON queue_items (finished_at) WHERE status IN ('Complete', 'Failed')`,
];

const fullIndexes = [
  'CREATE INDEX queue_items_claim ON queue_items (status, run_after, created_at)',
  'CREATE INDEX queue_items_reap ON queue_items (status, lease_until)',
  'CREATE INDEX queue_items_locked_by ON queue_items (locked_by)',
  'CREATE INDEX queue_items_prune ON queue_items (status, finished_at)',
  'CREATE INDEX queue_items_concurrency ON queue_items (status, concurrency_key, run_after, created_at)',
];

export const queueLookups: Migration = {
  name: '013-queue-lookups',
  async up(knex: Knex) {
    if (dialectOfKnex(knex) !== 'postgres') return;
    await knex.raw('DROP INDEX queue_items_claim, queue_items_reap, queue_items_locked_by, queue_items_prune, queue_items_concurrency');
    for (const statement of partialIndexes) await knex.raw(statement);
    await knex.raw(createClaimFunction);
    await knex.raw(createEndFunction);
  },
  async down(knex: Knex) {
    if (dialectOfKnex(knex) !== 'postgres') return;
    await knex.raw(
      'DROP INDEX queue_items_claim, queue_items_claim_unkeyed, queue_items_waiting_key, queue_items_running_key, queue_items_reap, queue_items_locked_by, queue_items_prune',
    );
    for (const statement of fullIndexes) await knex.raw(statement);
    await knex.raw('DROP FUNCTION syncline_end(uuid[], text[], integer[], text[], timestamptz[], timestamptz[], json[])');
    await queueClaimFunction.up(knex);
  },
};
