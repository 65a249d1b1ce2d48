/**
 * The label values of the metrics: bounded by the definitions loaded, never a webhook's id, and
 * the queue gauges' arithmetic (every defined sync with every status; the oldest due item's age).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Snapshot, WebhookEntry } from '../../../../definitions/snapshot.js';
import { otherProcess, processLabel, unknownWebhook, unnamedWebhook, webhookLabel } from '../../../../runtime/metrics/metric-labels.js';
import { depthByLabels, oldestPendingAgeSeconds } from '../../../../runtime/metrics/queue-gauges.js';
import type { QueueDepthRow } from '../../../../runtime/queue/queue-depth.js';

const snapshot = { syncs: new Map([['crm-to-erp', {}]]), flows: new Map([['nightly', {}]]) } as unknown as Snapshot;

const webhook = (definition: Record<string, unknown>) =>
  ({ definition: { id: 'wh_secretUrlPart0001', ...definition } }) as unknown as WebhookEntry;

test('a sync or flow keeps its id; an id the definitions do not hold becomes (other)', () => {
  assert.equal(processLabel(snapshot, 'crm-to-erp'), 'crm-to-erp');
  assert.equal(processLabel(snapshot, 'nightly'), 'nightly');
  assert.equal(processLabel(snapshot, 'renamed-since'), otherProcess);
  assert.equal(processLabel(snapshot, ''), otherProcess);
});

test('a webhook is labelled by its name, never its id', () => {
  assert.equal(webhookLabel(webhook({ name: 'Shop order intake' })), 'Shop order intake');
  assert.equal(webhookLabel(webhook({})), unnamedWebhook);
  assert.equal(webhookLabel(webhook({ name: '   ' })), unnamedWebhook);
  assert.equal(webhookLabel(undefined), unknownWebhook);
  for (const entry of [webhook({ name: 'x' }), webhook({}), undefined]) assert.doesNotMatch(webhookLabel(entry), /wh_/);
});

const row = (processId: string, status: QueueDepthRow['status'], count: number, earliest: string): QueueDepthRow => ({
  processId,
  status,
  count,
  earliest: new Date(earliest),
});

test('queue depth: every defined sync with every status, zero included; undefined ones summed as (other)', () => {
  const counts = depthByLabels(
    [
      row('crm-to-erp', 'Pending', 3, '2030-01-01T00:00:00Z'),
      row('crm-to-erp', 'Complete', 10, '2029-12-31T00:00:00Z'),
      row('gone-a', 'Pending', 2, '2030-01-01T00:00:00Z'),
      row('gone-b', 'Pending', 5, '2030-01-01T00:00:00Z'),
    ],
    { current: snapshot },
  );
  const at = (status: string, sync: string) => counts.get(`${status}\u0000${sync}`);
  assert.equal(at('Pending', 'crm-to-erp'), 3);
  assert.equal(at('Complete', 'crm-to-erp'), 10);
  assert.equal(at('Failed', 'crm-to-erp'), 0);
  assert.equal(at('InProgress', 'nightly'), 0);
  assert.equal(at('Pending', otherProcess), 7);
  assert.equal(counts.size, 4 * 2 + 1, 'two defined processes with four statuses, and (other) where it has items');
});

test('the oldest Pending age: since the earliest due Pending item came due; 0 when none is due', () => {
  const now = new Date('2030-01-01T01:00:00Z');
  assert.equal(oldestPendingAgeSeconds([], now), 0);
  assert.equal(
    oldestPendingAgeSeconds(
      [
        row('a', 'Pending', 1, '2030-01-01T00:59:30Z'),
        row('b', 'Pending', 4, '2030-01-01T00:58:00Z'),
        row('c', 'Failed', 1, '2029-01-01T00:00:00Z'),
        row('d', 'InProgress', 1, '2029-06-01T00:00:00Z'),
      ],
      now,
    ),
    120,
  );
  assert.equal(oldestPendingAgeSeconds([row('later', 'Pending', 2, '2030-01-01T02:00:00Z')], now), 0, 'a backed-off item is not due yet');
});
