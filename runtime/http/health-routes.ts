/**
 * /healthz (liveness: the process answers and, where a daemon runs in it, its claim loop goes
 * round — daemon/daemon-liveness.ts; 503 otherwise, for an orchestrator to restart it) and /readyz
 * (a snapshot is loaded; with the last reload's outcome, so a rejected edit is visible to operators
 * while the old snapshot keeps serving; and the queue with the daemons across the cluster, whose
 * database must answer and take writes: without it nothing can be started or polled, so /readyz is
 * 503). Served by `serve` and by `syncline daemon --http-port`, neither needing a token.
 */
import type Router from '@koa/router';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { formatProblem } from '../../definitions/problem.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { writeHealth } from '../database/write-probe.js';
import { queueReadiness } from './queue-readiness.js';

/** Whether the process is alive beyond answering: its daemon's claim loop, where one runs. */
export type LivenessCheck = () => { ok: true } | { ok: false; reason: string };

export interface HealthOptions {
  db: RuntimeDatabase;
  /** Default: alive (no daemon runs in this process). */
  liveness?: LivenessCheck;
}

export function healthRoutes(router: Router, holder: SnapshotHolder, { db, liveness = () => ({ ok: true }) }: HealthOptions): void {
  // From now on, a statement that meets a failing database makes /readyz unready at once.
  writeHealth(db);
  router.get('/healthz', (ctx) => {
    const live = liveness();
    if (live.ok) ctx.body = { status: 'ok' };
    else {
      ctx.status = 503;
      ctx.body = { status: 'failing', reason: live.reason };
    }
  });
  router.get('/readyz', async (ctx) => {
    const status = holder.status;
    const queue = await queueReadiness(db);
    ctx.status = queue.ok ? 200 : 503;
    ctx.body = {
      status: queue.ok ? 'ready' : 'unready',
      ...(queue.ok ? {} : { reason: queue.reason }),
      snapshot: describeSnapshot(holder.current),
      lastReload: {
        at: status.at.toISOString(),
        ok: status.ok,
        durationMs: Math.round(status.durationMs),
        // A webhook's id is its URL's secret when it has no other: never shown without a token.
        problems: status.problems.map((problem) =>
          formatProblem(problem.kind === 'Webhook' && problem.id !== undefined ? { ...problem, id: '…' } : problem),
        ),
      },
      ...(queue.ok ? { queue: queue.queue } : {}),
    };
  });
}

/**
 * What is loaded: the digest and how many definitions of each kind — not their ids, since /readyz
 * answers without a token and a webhook's id may be all that protects its URL (the OpenAPI
 * document, behind a token, lists what each client may use).
 */
export function describeSnapshot(snapshot: Snapshot) {
  return {
    digest: snapshot.digest,
    loadedAt: snapshot.loadedAt.toISOString(),
    files: snapshot.files.length,
    definitions: {
      System: snapshot.systems.size,
      Sync: snapshot.syncs.size,
      Webhook: snapshot.webhooks.size,
      Flow: snapshot.flows.size,
      ApiClient: snapshot.apiClients.size,
    },
  };
}
