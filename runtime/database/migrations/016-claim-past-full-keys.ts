/**
 * PostgreSQL: the daemon's claim (`syncline_claim`, migration 015's, replaced) steps over a
 * concurrency key at its limit instead of reading through its waiting items.
 *
 * A sync's limit is 1 unless it says otherwise, so a sync with a backlog (webhook calls arriving
 * faster than its runs) is at its limit whenever one of its items runs. Its waiting items fill the
 * front of the line, and both of migration 015's choices read the line in order, leaving out
 * the items whose key is full one by one: a claim read the whole backlog, twice, under the claim
 * lock every daemon waits for. With 10,000 waiting that was 40 ms a claim, so the whole cluster
 * claimed at most 25 times a second while the one busy sync worked off its backlog.
 *
 * Now:
 * - The short choice reads the first `2 × p_limit` due items, keyed or not, in line, and only then
 *   leaves out those whose key is full. When that yields the claim's size, every item it did not
 *   read is later in line than all it chose, so the choice is the full head's. (Migration 015's
 *   short head took unkeyed items from the whole line: past a full key's backlog, a newer
 *   unkeyed item could be taken before an older keyed one behind it.)
 * - Otherwise it chooses key by key: the keys with waiting items, found one index probe each
 *   (`waiting_keys`, a loose scan of queue_items_waiting_line), and for each the first `p_limit`
 *   due items in its own line (`key_line`, the same index). A full key costs those few rows, however
 *   long its backlog. The items are ranked and qualified by claim.ts's rule, as before, and the
 *   oldest `p_limit` taken. A claim that takes `p_limit` items never needs more than `p_limit` of
 *   one key, and the items of a key are qualified in its own order, so this is the full head's
 *   choice — except where items of one key carry different limits (a definition changed while
 *   they waited): then only the key's first `p_limit` waiting items are weighed until they start.
 *
 * The index queue_items_waiting_line, (concurrency_key, run_after, created_at) of the Pending
 * items with a key, replaces queue_items_waiting_key, (concurrency_key) of the same rows: it
 * serves what that one did, by its first column.
 *
 * `p_head` is no longer read. The signature stays, so that daemons of the previous version,
 * which pass it, go on claiming while a cluster is upgraded one process at a time.
 */
import type { Knex } from 'knex';
import { claimChosenUpdate, claimHead } from './015-claim-head.js';
import { dialectOfKnex } from './column-types.js';
import type { Migration } from './migration.js';

/** Of `head`, each key's first (limit − running) items in line; with the unkeyed items before it, the oldest `p_limit`. */
const rankedHead = `  SELECT ranked.id, ranked.run_after, ranked.created_at FROM (
         SELECT id, run_after, created_at, running, concurrency_limit,
                ROW_NUMBER() OVER (PARTITION BY concurrency_key ORDER BY run_after, created_at, id) AS place
           FROM head) AS ranked
   WHERE ranked.place + ranked.running <= ranked.concurrency_limit
  ORDER BY run_after, created_at
  LIMIT p_limit`;

/**
 * queue/claim.ts's claimRanking, its values named: the unkeyed items and the qualified ones of
 * `head`, oldest `p_limit` first (queue-claim-function.test.ts holds the two texts equal).
 */
const ranking = `  SELECT free.id, free.run_after, free.created_at FROM (
         SELECT id, run_after, created_at FROM queue_items
          WHERE status = 'Pending' AND run_after <= v_now AND concurrency_key IS NULL
          ORDER BY run_after, created_at LIMIT p_limit) AS free
  UNION ALL
${rankedHead}`;

const busy = `busy AS MATERIALIZED (SELECT concurrency_key AS busy_key, COUNT(*) AS running FROM queue_items
                 WHERE status = 'InProgress' AND concurrency_key IS NOT NULL
                 GROUP BY concurrency_key)`;

/**
 * The first `v_short_head` due items of any kind, in line, chosen among as claim.ts's ranking does:
 * the unkeyed ones, and each key's first (limit − running). Every item it does not read is later
 * in line than all it read, so `p_limit` items chosen here are the claim.
 */
export const shortChoice = `
  WITH ${busy},
       line AS (SELECT q.id, q.run_after, q.created_at, q.concurrency_key, q.concurrency_limit
                  FROM queue_items q
                 WHERE q.status = 'Pending' AND q.run_after <= v_now
                 ORDER BY q.run_after, q.created_at
                 LIMIT v_short_head),
       head AS (SELECT line.id, line.run_after, line.created_at, line.concurrency_key, line.concurrency_limit, COALESCE(busy.running, 0) AS running
                  FROM line LEFT JOIN busy ON busy.busy_key = line.concurrency_key
                 WHERE line.concurrency_key IS NOT NULL AND COALESCE(busy.running, 0) < line.concurrency_limit)
  SELECT free.id, free.run_after, free.created_at FROM line AS free WHERE free.concurrency_key IS NULL
  UNION ALL
${rankedHead}`;

/** Every key with a waiting item, one probe each, then each key's first `p_limit` due items in its line. */
export const keyByKeyChoice = `
  WITH RECURSIVE ${busy},
       waiting_keys (waiting_key) AS (
         (SELECT w.concurrency_key FROM queue_items w
           WHERE w.status = 'Pending' AND w.concurrency_key IS NOT NULL
           ORDER BY w.concurrency_key LIMIT 1)
         UNION ALL
         SELECT (SELECT w.concurrency_key FROM queue_items w
                  WHERE w.status = 'Pending' AND w.concurrency_key IS NOT NULL AND w.concurrency_key > waiting_keys.waiting_key
                  ORDER BY w.concurrency_key LIMIT 1)
           FROM waiting_keys WHERE waiting_keys.waiting_key IS NOT NULL),
       head AS (SELECT key_line.id, key_line.run_after, key_line.created_at, key_line.concurrency_key, key_line.concurrency_limit,
                       COALESCE(busy.running, 0) AS running
                  FROM waiting_keys
                  LEFT JOIN busy ON busy.busy_key = waiting_keys.waiting_key
                  CROSS JOIN LATERAL (SELECT q.id, q.run_after, q.created_at, q.concurrency_key, q.concurrency_limit
                                        FROM queue_items q
                                       WHERE q.status = 'Pending' AND q.concurrency_key = waiting_keys.waiting_key AND q.run_after <= v_now
                                       ORDER BY q.run_after, q.created_at
                                       LIMIT p_limit) AS key_line
                 WHERE waiting_keys.waiting_key IS NOT NULL AND COALESCE(busy.running, 0) < key_line.concurrency_limit)
${ranking}`;

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
  v_short_head integer := 2 * p_limit;
  v_chosen uuid[];
BEGIN
  PERFORM name FROM queue_locks WHERE name = 'claim' FOR UPDATE;
  v_now := CASE WHEN p_add_wait THEN p_now + (clock_timestamp() - statement_timestamp()) ELSE p_now END;
  v_lease_until := v_now + p_lease_ms * interval '1 millisecond';
  v_chosen := ARRAY(SELECT due.id FROM (${shortChoice}) AS due);
  IF cardinality(v_chosen) < p_limit THEN
    v_chosen := ARRAY(SELECT due.id FROM (${keyByKeyChoice}) AS due);
  END IF;
  RETURN QUERY ${claimChosenUpdate};
END
$claim$`;

export const claimPastFullKeys: Migration = {
  name: '016-claim-past-full-keys',
  async up(knex: Knex) {
    if (dialectOfKnex(knex) !== 'postgres') return;
    await knex.raw(
      `CREATE INDEX queue_items_waiting_line ON queue_items (concurrency_key, run_after, created_at) WHERE status = 'Pending' AND concurrency_key IS NOT NULL`,
    );
    await knex.raw('DROP INDEX queue_items_waiting_key');
    await knex.raw(createFunction);
  },
  async down(knex: Knex) {
    if (dialectOfKnex(knex) !== 'postgres') return;
    await knex.raw(
      `CREATE INDEX queue_items_waiting_key ON queue_items (concurrency_key) WHERE status = 'Pending' AND concurrency_key IS NOT NULL`,
    );
    await knex.raw('DROP INDEX queue_items_waiting_line');
    await claimHead.up(knex);
  },
};
