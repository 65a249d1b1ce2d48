/**
 * Cursor values as marks (runtime/sync/cursor-values.ts): each type's text and order, the bound a
 * run reads from with the look-back, the cap a failed record puts on the mark; and which
 * ActionParams ask for a full run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareCursorValues, markBelowFailure, markText, readBound } from '../../../../runtime/sync/cursor-values.js';
import { asksFullRun } from '../../../../runtime/sync/sync-cursor.js';

test('a record value becomes mark text of its type; null and values of another type none', () => {
  assert.equal(markText('DateTime', '2024-01-05T11:00:00+01:00'), '2024-01-05T10:00:00.000Z');
  assert.equal(markText('DateTime', new Date('2024-01-05T10:00:00Z')), '2024-01-05T10:00:00.000Z');
  assert.equal(markText('DateTime', 'yesterday'), undefined);
  assert.equal(markText('Date', '2024-01-05'), '2024-01-05');
  assert.equal(markText('Integer', 42), '42');
  assert.equal(markText('Integer', '123456789012345678901234'), '123456789012345678901234', 'past a double: kept exact');
  assert.equal(markText('Integer', 1.5), undefined);
  assert.equal(markText('Integer', null), undefined);
});

test('marks order as their type does: instants, days, integers of any length', () => {
  assert.ok(compareCursorValues('DateTime', '2024-01-05T10:00:00.000Z', '2024-01-05T10:00:00.001Z') < 0);
  assert.ok(compareCursorValues('Date', '2024-02-01', '2024-01-31') > 0);
  assert.ok(compareCursorValues('Integer', '9', '10') < 0, 'not as text');
  assert.ok(compareCursorValues('Integer', '123456789012345678901235', '123456789012345678901234') > 0);
  assert.equal(compareCursorValues('Integer', '7', '7'), 0);
});

test('a run reads timestamps from the mark less the look-back, an Integer key past the mark', () => {
  assert.deepEqual(readBound({ field: 't', type: 'DateTime', lookBackMs: 300_000 }, '2024-01-05T10:00:00.000Z'), {
    op: '>=',
    value: '2024-01-05T09:55:00.000Z',
  });
  assert.deepEqual(readBound({ field: 'd', type: 'Date', lookBackMs: 3_600_000 }, '2024-03-01'), { op: '>=', value: '2024-02-29' });
  assert.deepEqual(readBound({ field: 'd', type: 'Date', lookBackMs: 0 }, '2024-03-01'), { op: '>=', value: '2024-03-01' });
  assert.deepEqual(readBound({ field: 'id', type: 'Integer', lookBackMs: 0 }, '41'), { op: '>', value: 41 });
  assert.deepEqual(readBound({ field: 'id', type: 'Integer', lookBackMs: 0 }, '123456789012345678901234'), {
    op: '>',
    value: '123456789012345678901234',
  });
});

test('a failed value holds the mark where the next run reads it again', () => {
  assert.equal(markBelowFailure('Integer', '100'), '99', 'read past 99: 100 again');
  assert.equal(markBelowFailure('DateTime', '2024-01-05T10:00:00.000Z'), '2024-01-05T10:00:00.000Z', 'read from it on');
});

test('FULL_RUN=true (any case, the last one given) asks for a full run', () => {
  assert.equal(asksFullRun([{ Name: 'FULL_RUN', Value: 'TRUE' }]), true);
  assert.equal(
    asksFullRun([
      { Name: 'FULL_RUN', Value: 'true' },
      { Name: 'FULL_RUN', Value: 'false' },
    ]),
    false,
  );
  assert.equal(asksFullRun([{ Name: 'full_run', Value: 'true' }]), false, 'the name is exact, as every parameter name');
  assert.equal(asksFullRun(null), false);
});
