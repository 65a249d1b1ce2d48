/**
 * The PostgreSQL claim function carries the text of the claim; a change to queue/claim.ts's
 * statement must come with a new migration that replaces the function, or the daemons (which
 * claim through it) and direct runs (which claim through claim.ts) would choose differently.
 * Migration 012 made the function, 013 replaced its UPDATE, 015 ranks a short head first, 016
 * builds its heads past full keys and ranks them with claim.ts's rule; all are held to claim.ts.
 * No database needed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimFunctionChoice } from '../../../../runtime/database/migrations/012-queue-claim-function.js';
import { claimFunctionUpdate } from '../../../../runtime/database/migrations/013-queue-lookups.js';
import { claimChoiceWithHead, claimChosenUpdate } from '../../../../runtime/database/migrations/015-claim-head.js';
import { keyByKeyChoice, shortChoice } from '../../../../runtime/database/migrations/016-claim-past-full-keys.js';
import { claimableQuery, claimRanking, claimStatement, shortChoice as claimShortChoice } from '../../../../runtime/queue/claim.js';

const words = (sql: string) => sql.trim().split(/\s+/).join(' ');

/** `sql` with its `?` replaced by `names`, in order; fails unless it takes exactly that many values. */
function named(sql: string, names: readonly string[]): string {
  let place = 0;
  const text = sql.replace(/\?/g, () => names[place++] ?? '?');
  assert.equal(place, names.length, `the statement takes ${names.length} values`);
  return text;
}

const choiceValues = ['v_now', 'p_head', 'v_now', 'p_limit', 'p_limit'];

test("migration 012's function chose items with claim.ts's query, its values named", () => {
  assert.equal(words(claimFunctionChoice), words(named(claimableQuery('postgres', 0), choiceValues)));
});

test("the claim function of migration 013 claims with claim.ts's statement, its values named", () => {
  const statement = named(claimStatement('postgres', 0), ['p_worker', 'v_lease_until', 'v_now', ...choiceValues]);
  assert.equal(words(claimFunctionUpdate), words(statement));
  assert.match(claimFunctionUpdate, /\(status = 'Pending'\) IS TRUE/, 'the Pending test is one no index can serve');
});

test("the claim function of migration 015 chooses with claim.ts's query, first with a short head, then the full one", () => {
  const choice = (head: string) => named(claimableQuery('postgres', 0), ['v_now', head, 'v_now', 'p_limit', 'p_limit']);
  assert.equal(words(claimChoiceWithHead('v_short_head')), words(choice('v_short_head')));
  assert.equal(words(claimFunctionChoice), words(choice('p_head')));
});

test("the claim function of migration 015 claims the chosen ids with claim.ts's UPDATE", () => {
  const statement = named(claimStatement('postgres', 0), ['p_worker', 'v_lease_until', 'v_now', ...choiceValues]);
  const chosen = `ARRAY(SELECT due.id FROM (${named(claimableQuery('postgres', 0), choiceValues)}) AS due)`;
  assert.ok(statement.includes(chosen), 'claim.ts chooses the ids in its UPDATE');
  assert.equal(words(claimChosenUpdate), words(statement.replace(chosen, 'v_chosen')));
});

test('the claim function of migration 016 chooses with claim.ts’s short choice, then ranks key by key with claim.ts’s rule, its values named', () => {
  assert.equal(words(shortChoice), words(named(claimShortChoice('postgres'), ['v_now', 'v_short_head', 'p_limit'])));
  const ranking = words(named(claimRanking(), ['v_now', 'p_limit', 'p_limit']));
  assert.ok(words(keyByKeyChoice).endsWith(ranking), 'the key-by-key choice ends with the ranking of claim.ts');
  assert.ok(words(ranking).endsWith(words(shortChoice).slice(words(shortChoice).indexOf('UNION ALL'))), 'both rank keyed items alike');
  assert.match(
    keyByKeyChoice,
    /COALESCE\(busy\.running, 0\) < key_line\.concurrency_limit/,
    'keys at their limit are left out of the head',
  );
  assert.ok(words(claimableQuery('postgres', 0)).endsWith(words(claimRanking())), 'claim.ts ranks its own head with it');
});
