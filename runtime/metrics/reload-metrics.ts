/**
 * Hot reloads of the definitions (definitions/watch-definitions.ts), from the snapshot holder's
 * events and status:
 *
 * - `syncline_definitions_reloads_total{result}`: reloads that swapped in new definitions
 *   (`success`) and edits refused whole while the old definitions kept serving (`failure`);
 * - `syncline_definitions_last_reload_timestamp_seconds`: when the last reload ended, whatever its
 *   result (the start's load counts as the first);
 * - `syncline_definitions_last_reload_success`: 1 when that reload swapped, 0 while a refused
 *   edit waits to be mended — a bad edit is in the files, and the process serves older ones.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';

export function registerReloadMetrics(registry: Registry, holder: SnapshotHolder): void {
  const reloads = new Counter({
    name: 'syncline_definitions_reloads_total',
    help: 'Reloads of the definitions by result: success (swapped in) or failure (refused, the old definitions keep serving).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  // Both series from the start, so a rate over them is defined before the first reload.
  reloads.inc({ result: 'success' }, 0);
  reloads.inc({ result: 'failure' }, 0);
  holder.on('swap', () => reloads.inc({ result: 'success' }));
  holder.on('rejected', () => reloads.inc({ result: 'failure' }));

  new Gauge({
    name: 'syncline_definitions_last_reload_timestamp_seconds',
    help: 'When the last reload of the definitions ended (Unix time), whether it succeeded or not.',
    registers: [registry],
    collect() {
      this.set(holder.status.at.getTime() / 1000);
    },
  });
  new Gauge({
    name: 'syncline_definitions_last_reload_success',
    help: '1 when the last reload swapped in the definitions, 0 when it was refused (older definitions serve).',
    registers: [registry],
    collect() {
      this.set(holder.status.ok ? 1 : 0);
    },
  });
}
