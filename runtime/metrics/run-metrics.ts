/**
 * What runs did, counted as each attempt's end is recorded (execution/run-held-item.ts) — by the
 * daemon and by the direct runs of the API, in the process that ran it:
 *
 * - `syncline_run_duration_seconds{sync, result}`: a histogram of how long attempts took, by sync
 *   (or flow) and result (`Complete`, `Failed`; a failed attempt that will be retried is `Failed`
 *   too). Its `_count` is the number of attempts, so failed runs per minute need no other metric.
 * - `syncline_run_records_total{sync, outcome}`: the records of those attempts by what became of
 *   them (`read`, `created`, `updated`, `skipped`, `failed`), as the item's Statistics count them.
 *
 * A run whose end is not recorded (its item was taken back after its lease ran out, or the
 * process stopped under it) is not counted: another attempt will be.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { ItemStatistics } from '../queue/queue-item.js';
import { processLabel } from './metric-labels.js';

/** An attempt whose end was recorded. */
export interface FinishedRun {
  /** The definitions the run used (the label is its sync's id when they define it). */
  snapshot: Snapshot;
  processId: string;
  result: 'Complete' | 'Failed';
  durationMs: number;
  statistics: Readonly<ItemStatistics>;
}

export interface RunMetrics {
  observeRun(run: FinishedRun): void;
}

/** From a tenth of a second to two hours: a webhook's ad-hoc run, a nightly full sync. */
const durationBuckets = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200];

const outcomes = ['read', 'created', 'updated', 'skipped', 'failed'] as const satisfies ReadonlyArray<keyof ItemStatistics>;

export function registerRunMetrics(registry: Registry): RunMetrics {
  const duration = new Histogram({
    name: 'syncline_run_duration_seconds',
    help: 'Duration of sync and flow runs (attempts) by sync (or flow) id and result.',
    labelNames: ['sync', 'result'] as const,
    buckets: durationBuckets,
    registers: [registry],
  });
  const records = new Counter({
    name: 'syncline_run_records_total',
    help: 'Records of sync and flow runs by sync (or flow) id and outcome (read, created, updated, skipped, failed).',
    labelNames: ['sync', 'outcome'] as const,
    registers: [registry],
  });
  return {
    observeRun(run) {
      const sync = processLabel(run.snapshot, run.processId);
      duration.observe({ sync, result: run.result }, run.durationMs / 1000);
      for (const outcome of outcomes) records.inc({ sync, outcome }, run.statistics[outcome]);
    },
  };
}
