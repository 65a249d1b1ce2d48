/**
 * /healthz (the process answers) and /readyz (a snapshot is loaded; with the last reload's outcome,
 * so a rejected edit is visible to operators while the old snapshot keeps serving).
 */
import type Router from '@koa/router';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { formatProblem } from '../../definitions/problem.js';

export function healthRoutes(router: Router, holder: SnapshotHolder): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', (ctx) => {
    const status = holder.status;
    ctx.body = {
      status: 'ready',
      snapshot: describeSnapshot(holder.current),
      lastReload: {
        at: status.at.toISOString(),
        ok: status.ok,
        durationMs: Math.round(status.durationMs),
        problems: status.problems.map(formatProblem),
      },
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
