/**
 * What the operator console shows about this instance (scope `console`, DESIGN §9):
 *
 *   GET /api/console/overview   version, role, queue counts, daemons, schedules, last reload
 *   GET /api/schedules          every schedule with its next and last run
 *   GET /api/definitions        what is loaded (kind, id, name, file, line) and the last reload
 *   GET /api/webhooks           the webhooks: URL, action, what they touch, active, secret or not
 *   GET /api/systems            the systems: connector, capabilities, objects and queries by name
 *   GET /api/systems/{id}       one system with each object's key, fields and groups, each query's columns
 *
 * A client with allow-lists sees only the definitions it may use (console-visibility.ts), and
 * counts only its own queue items; a system off its list is answered 403 by name, as the
 * connection routes answer it (resolve-target.ts). Answers name files relative to the definitions directory and
 * carry no definition content beyond identity: no connection settings, no secrets.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { SnapshotHolder } from '../../definitions/snapshot-holder.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import { activeDaemons, countActiveDaemons } from '../cluster/active-daemons.js';
import { ConsoleVisibility } from './console-visibility.js';
import { definitionList, DefinitionsPaths, reloadSummary } from '../console/definition-list.js';
import { scheduleList } from '../console/schedule-list.js';
import { systemDetail, systemList } from '../console/system-list.js';
import { webhookList } from '../console/webhook-list.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { countByStatus } from '../queue/queue-summary.js';
import { requireScope } from './auth.js';
import { resolveSystem } from './resolve-target.js';

/** What this process runs: the API alone (serve --no-daemon), or the API with a daemon and scheduler. */
export type ProcessRole = 'api' | 'api+daemon';

export interface ConsoleInfoOptions {
  db: RuntimeDatabase;
  holder: SnapshotHolder;
  /** Describes a system's objects, as RunConnectionGetData does. */
  connections: ConnectionProvider;
  /** The definitions directory, which answers name files relative to. */
  definitionsDir: string;
  version: string;
  role: ProcessRole;
}

export function consoleInfoRoutes(router: Router, { db, holder, connections, definitionsDir, version, role }: ConsoleInfoOptions): void {
  const paths = new DefinitionsPaths(definitionsDir);
  const visibility = (ctx: Context) => new ConsoleVisibility(requireScope(ctx, 'console'), ctx.state.snapshot as Snapshot);

  router.get('/console/overview', async (ctx) => {
    const visible = visibility(ctx);
    const [queue, daemons] = await Promise.all([countByStatus(db, visible.processIds()), activeDaemons(db)]);
    const schedules = await scheduleList(db, visible.snapshot, visible, { daemons: daemons.count });
    ctx.body = {
      version,
      role,
      queue,
      daemons: {
        count: daemons.count,
        daemons: daemons.daemons.map((daemon) => ({
          ...daemon,
          startedAt: daemon.startedAt.toISOString(),
          lastHeartbeatAt: daemon.lastHeartbeatAt.toISOString(),
        })),
      },
      schedules,
      lastReload: reloadSummary(holder.status, visible, paths),
    };
  });

  router.get('/schedules', async (ctx) => {
    const visible = visibility(ctx);
    const daemons = await countActiveDaemons(db);
    ctx.body = { schedules: await scheduleList(db, visible.snapshot, visible, { daemons }) };
  });

  router.get('/definitions', (ctx) => {
    const visible = visibility(ctx);
    const snapshot = visible.snapshot;
    ctx.body = {
      digest: snapshot.digest,
      loadedAt: snapshot.loadedAt.toISOString(),
      definitions: definitionList(snapshot, visible, paths),
      lastReload: reloadSummary(holder.status, visible, paths),
    };
  });

  router.get('/webhooks', async (ctx) => {
    const visible = visibility(ctx);
    ctx.body = { webhooks: await webhookList(db, visible.snapshot, visible, paths) };
  });

  router.get('/systems', (ctx) => {
    const visible = visibility(ctx);
    ctx.body = { systems: systemList(visible.snapshot, visible, paths) };
  });

  router.get('/systems/:systemId', async (ctx) => {
    // The connection describes the objects (no round trip to the system: from the definition).
    const target = await resolveSystem(ctx, connections, ctx.params.systemId!, 'console');
    ctx.body = systemDetail(target.system, paths, (object) => target.connection.describe(object));
  });
}
