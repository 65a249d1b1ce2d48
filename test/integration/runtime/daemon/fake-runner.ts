/**
 * Test helpers for running queue items without the sync engine: a snapshot holding only the
 * settings the queue reads (timeout, retries, schedule), fake RunProcess functions, and a logger
 * whose lines the test can read.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import type { Schedule } from '../../../../definitions/types.js';
import type { RuntimeDatabase } from '../../../../runtime/database/open-database.js';
import type { RunOutcome, RunProcess } from '../../../../runtime/execution/process-run.js';
import type { ItemRunner } from '../../../../runtime/execution/run-held-item.js';
import type { Logger } from '../../../../runtime/log.js';
import type { ItemStatistics } from '../../../../runtime/queue/queue-item.js';

export interface FakeSync {
  timeout?: string;
  retries?: { max: number; backoff: string; maxBackoff: string };
  schedule?: Schedule;
}

/** A snapshot with the given syncs (only what the queue reads) and flows. */
export function fakeSnapshot(syncs: Record<string, FakeSync>, flows: Record<string, { schedule?: Schedule }> = {}): Snapshot {
  const syncEntries = Object.entries(syncs).map(([id, sync]) => [
    id,
    {
      definition: {
        kind: 'Sync',
        id,
        timeout: sync.timeout ?? '30m',
        retries: sync.retries ?? { max: 3, backoff: '30s', maxBackoff: '1h' },
        ...(sync.schedule ? { schedule: sync.schedule } : {}),
      },
    },
  ]);
  const flowEntries = Object.entries(flows).map(([id, flow]) => [
    id,
    { definition: { kind: 'Flow', id, steps: [], ...(flow.schedule ? { schedule: flow.schedule } : {}) } },
  ]);
  return {
    digest: 'f'.repeat(64),
    loadedAt: new Date(),
    files: [],
    systems: new Map(),
    syncs: new Map(syncEntries as never),
    webhooks: new Map(),
    flows: new Map(flowEntries as never),
    apiClients: new Map(),
  } as unknown as Snapshot;
}

export function statistics(read: number, created = 0): ItemStatistics {
  return { read, created, updated: 0, skipped: 0, failed: 0 };
}

export const completeOutcome = (read = 3): RunOutcome => ({
  status: 'Complete',
  statistics: statistics(read, read),
  errors: [],
  retryable: false,
});

/** Resolves when the signal aborts. */
export function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** A run that waits until aborted, then answers Failed as the engine does. */
export const runUntilAborted: RunProcess = async (_environment, start) => {
  await aborted(start.signal);
  return { status: 'Failed', statistics: statistics(0), errors: [{ message: 'aborted' }], retryable: true };
};

/** A run that takes `ms` and completes. */
export function runFor(ms: number): RunProcess {
  return async () => {
    await sleep(ms);
    return completeOutcome();
  };
}

export interface CapturedLog {
  log: Logger;
  lines: Array<{ level: number; msg: string; [field: string]: unknown }>;
}

export function captureLog(): CapturedLog {
  const lines: CapturedLog['lines'] = [];
  const log = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        const entry = JSON.parse(line) as CapturedLog['lines'][number];
        lines.push(entry);
        // For chasing a failure: SYNCLINE_TEST_ECHO_LOG=1 shows warnings and errors as they happen.
        if (process.env.SYNCLINE_TEST_ECHO_LOG && entry.level >= 40) process.stderr.write(line);
      },
    },
  );
  return { log, lines };
}

export function fakeRunner(db: RuntimeDatabase, runProcess: RunProcess, overrides: Partial<ItemRunner> = {}): ItemRunner {
  return {
    db,
    snapshot: () => fakeSnapshot({ 'crm-to-erp': {} }),
    connections: { get: async () => Promise.reject(new Error('no connections in queue tests')) },
    log: captureLog().log,
    runProcess,
    workerId: 'test-worker',
    leaseMs: 30_000,
    ...overrides,
  };
}

/** Polls `check` until it answers true, failing after `ms`. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 5000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms}ms`);
    await sleep(20);
  }
}
