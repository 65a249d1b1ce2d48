/**
 * /healthz (the process answers) and /readyz (a snapshot is loaded; with the last reload's outcome,
 * so a rejected edit is visible to operators while the old snapshot keeps serving; and the queue,
 * whose database must answer: without it nothing can be started or polled, so /readyz is 503).
 */
import type Router from '@koa/router';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { formatProblem } from '../../definitions/problem.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { queueReadiness } from './queue-readiness.js';

export interface HealthOptions {
  db: RuntimeDatabase;
  /** Whether a daemon runs in this process (default: none does). */
  daemonActive?: () => boolean;
}

export function healthRoutes(router: Router, holder: SnapshotHolder, { db, daemonActive = () => false }: HealthOptions): void {
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
        problems: status.problems.map(formatProblem),
      },
      ...(queue.ok ? { queue: queue.queue } : {}),
    };
  });
}

/** What is loaded, by kind and id — never connection settings or secrets. */
export function describeSnapshot(snapshot: Snapshot) {
  return {
    digest: snapshot.digest,
    loadedAt: snapshot.loadedAt.toISOString(),
    files: snapshot.files,
    definitions: {
      System: [...snapshot.systems.keys()],
      Sync: [...snapshot.syncs.keys()],
      Webhook: [...snapshot.webhooks.keys()],
      Flow: [...snapshot.flows.keys()],
      ApiClient: [...snapshot.apiClients.keys()],
    },
  };
}
