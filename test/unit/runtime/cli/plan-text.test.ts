/**
 * The text plan of a dry run, from planned records alone: values shown as JSON and cut with their
 * length said, sections capped at 50 in source order whatever order the records came in, updates
 * of several records and of a record the run creates, unchanged records counted or listed, and a
 * plan the run could not finish.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SyncDefinition } from '../../../../definitions/types.js';
import type { RunOutcome } from '../../../../runtime/execution/process-run.js';
import type { PlannedRecord } from '../../../../runtime/sync/planned-record.js';
import { LISTED, PlanText, valueText } from '../../../../runtime/cli/plan-text.js';

const sync = {
  id: 'crm-to-erp',
  source: { system: 'crm', object: 'Customer' },
  target: { system: 'erp', object: 'Account' },
  match: { where: 'Email = #Email#', onNoMatch: 'create', onMatch: 'update', onMultipleMatches: 'updateAll' },
} as unknown as SyncDefinition;

const complete = (statistics: Partial<RunOutcome['statistics']> = {}): RunOutcome => ({
  status: 'Complete',
  statistics: { read: 0, created: 0, updated: 0, skipped: 0, failed: 0, ...statistics },
  errors: [],
  retryable: false,
});

test('values as JSON: text quoted with control characters escaped, long values cut with their length', () => {
  assert.equal(valueText('Ada'), '"Ada"');
  assert.equal(valueText('trailing '), '"trailing "');
  assert.equal(valueText('a\u0000b\n'), '"a\\u0000b\\n"');
  assert.equal(valueText(null), 'null');
  assert.equal(valueText(undefined), '(none)');
  assert.equal(valueText(12.5), '12.5');
  assert.equal(valueText({ b: [1, 2] }), '{"b":[1,2]}');
  const long = 'x'.repeat(100);
  assert.equal(valueText(long), `"${'x'.repeat(58)}…" (100 characters)`);
  assert.equal(valueText('🙂'.repeat(70)), `"${'🙂'.repeat(58)}…" (70 characters)`, 'cut between characters, not inside one');
  assert.match(valueText({ list: Array.from({ length: 40 }, (_, i) => i) }), /^\{"list":\[0,1,2,.*…\s\(\d+ characters of JSON\)$/);
});

test('a section lists its first 50 records in source order, then how many more', () => {
  const plan = new PlanText({ sync, actionParams: [] }, false);
  // Out of order, as a page's records may come.
  for (const position of Array.from({ length: 120 }, (_, i) => 120 - i)) {
    plan.add({
      position,
      sourceId: String(position),
      action: 'create',
      key: { Email: `${position}@x` },
      values: { Email: `${position}@x` },
    });
  }
  const text = plan.render(complete({ read: 120, created: 120 }), 12);
  const listed = [...text.matchAll(/^ {2}Customer (\d+) → Account/gm)].map((match) => Number(match[1]));
  assert.deepEqual(
    listed,
    Array.from({ length: LISTED }, (_, i) => i + 1),
  );
  assert.match(text, /\n {2}… and 70 more \(--format json or --verbose lists them all\)\n/);
  assert.match(text, /^Plan: 120 to create · 0 to update · 0 unchanged · 0 to skip · 0 to fail$/m);
});

test('updates of several records and of one the run creates; unchanged counted, or listed with --verbose', () => {
  const records: PlannedRecord[] = [
    {
      position: 3,
      sourceId: '3',
      action: 'update',
      targets: [
        { key: { Id: 7 }, changes: [{ field: 'City', old: 'Leeds', new: 'York' }] },
        { key: { Id: 8 }, changes: [] },
      ],
    },
    {
      position: 4,
      sourceId: '4',
      action: 'update',
      targets: [
        {
          key: { Email: 'a@x' },
          createdBy: { position: 1, sourceId: '1' },
          changes: [{ field: 'addresses[invoice].city', old: undefined, new: 'Leeds' }],
        },
      ],
    },
    { position: 5, sourceId: '5', action: 'unchanged', targets: [{ key: { Id: 9 }, changes: [] }] },
  ];
  const render = (verbose: boolean) => {
    const plan = new PlanText({ sync, actionParams: [{ Name: 'since', Value: '2024-01-01' }], whereClause: 'id > 2' }, verbose);
    for (const record of records) plan.add(record);
    return plan.render(complete({ read: 3, updated: 3 }), 5);
  };
  const text = render(false);
  assert.ok(
    text.startsWith(
      [
        'Dry run of crm-to-erp: nothing is written',
        '  from   crm/Customer where (--where) id > 2',
        '  to     erp/Account, matched by Email = #Email# (onMultipleMatches: updateAll)',
        '  params since=2024-01-01',
        '',
        'Plan: 0 to create · 2 to update · 1 unchanged · 0 to skip · 0 to fail',
        '',
        'Update (2)',
        '  Customer 3 → 2 Account records',
        '    Account 7',
        '      City  "Leeds" → "York"',
        '    Account 8',
        '      (no change)',
        '  Customer 4 → Account a@x (created in this run by Customer 1)',
        '    addresses[invoice].city  (none) → "Leeds"',
        '',
        'Unchanged (1)',
        '  not listed (--verbose lists them): each matches Account records holding every value it writes',
        '',
      ].join('\n'),
    ),
    text,
  );
  assert.match(text, /\nSkipped counts the 1 unchanged: a run leaves them as they are\.\n/);
  assert.match(render(true), /\nUnchanged \(1\)\n {2}Customer 5 → Account 9\n\n/);
});

test('a plan the run could not finish says where it stopped, and not what it did not get to check', () => {
  const plan = new PlanText({ sync, actionParams: [] }, false);
  plan.add({ position: 1, sourceId: '1', action: 'fail', reason: 'mapping: no name' });
  const text = plan.render(
    {
      status: 'Failed',
      statistics: { read: 1, created: 0, updated: 0, skipped: 0, failed: 1 },
      errors: [{ message: 'reading crm/Customer: gone' }],
      retryable: true,
    },
    3,
  );
  assert.match(text, /^Plan so far: 0 to create · 0 to update · 0 unchanged · 0 to skip · 1 to fail$/m);
  assert.match(
    text,
    /\nFail \(1\)\n {2}Customer 1: mapping: no name\n\nStopped: reading crm\/Customer: gone\n\ncrm-to-erp: Failed in 3 ms \(dry run: nothing was written\)\n/,
  );
  assert.doesNotMatch(text, /Not checked/);
});
