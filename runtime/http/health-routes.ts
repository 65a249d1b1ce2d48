/**
 * /healthz (the process answers) and /readyz (a snapshot is loaded; with the last reload's outcome,
 * so a rejected edit is visible to operators while the old snapshot keeps serving; and the queue,
 * whose database must answer and take writes: without it nothing can be started or polled, so
 * /readyz is 503).
 */
import type Router from '@koa/router';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { formatProblem } from '../../definitions/problem.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { writeHealth } from '../database/write-probe.js';
import { queueReadiness } from './queue-readiness.js';

export interface HealthOptions {
  db: RuntimeDatabase;
  /** Whether a daemon runs in this process (default: none does). */
  daemonActive?: () => boolean;
}

export function healthRoutes(router: Router, holder: SnapshotHolder, { db, daemonActive = () => false }: HealthOptions): void {
  // From now on, a statement that meets a failing database makes /readyz unready at once.
  writeHealth(db);
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const status = holder.status;
    const queue = await queueReadiness(db, daemonActive);
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
