/**
 * The PostgreSQL claim function (migration 012) carries the text of the claim's choice; a change
 * to queue/claim.ts's query must come with a new migration that replaces the function, or the
 * daemons (which claim through it) and direct runs (which claim through claim.ts) would choose
 * differently. No database needed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimFunctionChoice } from '../../../../runtime/database/migrations/012-queue-claim-function.js';
import { claimableQuery } from '../../../../runtime/queue/claim.js';

test("the claim function chooses items with claim.ts's query, its values named", () => {
  const names = ['v_now', 'p_head', 'v_now', 'p_limit', 'p_limit'];
  let place = 0;
  const named = claimableQuery('postgres', 0).replace(/\?/g, () => names[place++] ?? '?');
  assert.equal(place, names.length, 'the claim query takes five values');
  const words = (sql: string) => sql.trim().split(/\s+/).join(' ');
  assert.equal(words(claimFunctionChoice), words(named));
});
