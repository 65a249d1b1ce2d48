/**
 * The queue as a list, and what an operator does to one item (DESIGN §9: the console's queue page
 * uses only these, through the public, scoped API):
 *
 *   GET  /api/queue                 items newest first, filtered, keyset-paged   (queue:read)
 *   GET  /api/queue/{id}/events     the item's progress as server-sent events     (queue:read)
 *   POST /api/queue/{id}/cancel     a Pending item ends Failed without running   (queue:write)
 *   POST /api/queue/{id}/retry      a Failed item is started again as a new item (queue:write)
 *
 * Allow-lists: a client with a `syncs` list sees only the items GetAction would answer it (its
 * syncs, and flows whose syncs are all on the list). The list applies that in its query; cancel and
 * retry answer an item off the list 404, exactly like an unknown id, for GetAction's reason: the
 * URL names no sync, so a 403 would confirm that the id exists.
 *
 * Nothing rewrites history: a cancel only moves a Pending item to Failed (cancel.ts, atomic, only
 * while it is still Pending), and a retry leaves the failed item as it ended and enqueues a new one
 * carrying `RetryOf`.
 *
 * The events (item-events.ts): `item` at once, `progress` on each change, `done` when it ends; the
 * stream is refused 503 when this process already serves its most event streams.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { HttpProblem } from '../errors.js';
import type { Logger } from '../log.js';
import { attemptsOf } from '../execution/retry-of.js';
import { cancelPending } from '../queue/cancel.js';
import { enqueue } from '../queue/enqueue.js';
import { getItem } from '../queue/get-item.js';
import { listItems } from '../queue/list-items.js';
import { queueItemJson, queueListItemJson, type QueueRow, type QueueStatus } from '../queue/queue-item.js';
import { requireScope, type Principal } from './auth.js';
import { openEventStream } from './event-stream.js';
import { relayItem, type EventStreamSlots } from './item-events.js';
import { encodeCursor, parseQueueListQuery } from './queue-list-query.js';
import { checkStart, itemUrl, newItem } from './queue-routes.js';
import { findProcess, mayRead, mayStart, quoted } from './resolve-process.js';

export interface QueueItemRouteOptions {
  db: RuntimeDatabase;
  /** The systems' connections: a retry's source id is checked as a start's is. */
  connections: ConnectionProvider;
  log: Logger;
  /** The process's places for event streams, shared with the webhook test stream. */
  eventStreams: EventStreamSlots;
}

export function queueItemRoutes(router: Router, { db, connections, log, eventStreams }: QueueItemRouteOptions): void {
  router.get('/queue', async (ctx) => {
    const principal = requireScope(ctx, 'queue:read');
    const { sync, ...query } = parseQueueListQuery(ctx.query);
    const processIds = readableProcesses(principal, ctx.state.snapshot as Snapshot, sync);
    const page = await listItems(db, { ...query, ...(processIds === undefined ? {} : { processIds }) });
    ctx.body = { items: page.items.map(queueListItemJson), next: page.next === undefined ? null : encodeCursor(page.next) };
  });

  router.get('/queue/:queueId/events', async (ctx) => {
    const principal = requireScope(ctx, 'queue:read');
    const item = await visibleItem(ctx, db, principal, ctx.params.queueId!);
    // Checked before the stream opens, so a refusal is still an ordinary 503 answer.
    const release = eventStreams.acquire();
    const stream = openEventStream(ctx);
    // Not awaited: Koa starts streaming the response when this handler returns.
    void relayItem(stream, item, { db, slots: eventStreams, log }).finally(() => {
      release();
      stream.end();
    });
  });

  router.post('/queue/:queueId/cancel', async (ctx) => {
    const principal = requireScope(ctx, 'queue:write');
    const item = await visibleItem(ctx, db, principal, ctx.params.queueId!);
    if (item.status !== 'Pending') throw wrongStatus(item, 'Pending', 'cancelled');
    const cancelled = await cancelPending(db, item.id, `cancelled by client ${principal.id}`);
    // Read again either way: the answer is the item as it now is. When a daemon claimed it between
    // the read above and the cancel, the cancel did nothing and the item's new status is the reason.
    const now = (await getItem(db, item.id)) ?? item;
    if (!cancelled) throw wrongStatus(now, 'Pending', 'cancelled');
    ctx.body = queueItemJson(now);
  });

  router.post('/queue/:queueId/retry', async (ctx) => {
    const principal = requireScope(ctx, 'queue:write');
    const item = await visibleItem(ctx, db, principal, ctx.params.queueId!);
    if (item.status !== 'Failed') throw wrongStatus(item, 'Failed', 'retried');
    const snapshot = ctx.state.snapshot as Snapshot;
    const target = findProcess(snapshot, item.processId);
    if (target === undefined || target.id !== item.processId)
      throw new HttpProblem(
        'unknown-process',
        `Queue item ${item.id} ran ${quoted(item.processId)}, which is no longer defined; it cannot be retried. Start what replaced it with AddAction.`,
      );
    if (!mayStart(principal, snapshot, target))
      throw new HttpProblem('not-allowed', `Client ${principal.id} may not start ${quoted(item.processId)}.`);
    // The start as it was asked for, through the path AddAction takes: the sync's attempts and its
    // concurrency limit as defined now, so onLimit skip or fail answer a retry as they would answer
    // AddAction; its WhereClause and SourceId are checked as AddAction checks them, against the
    // definitions of now, so a start that could only fail again (a field since removed, a
    // WhereClause this version refuses) is a 400 rather than another Failed item.
    const start = {
      startType: item.startType,
      ...(item.sourceId === null ? {} : { sourceId: item.sourceId }),
      ...(item.whereClause === null ? {} : { whereClause: item.whereClause }),
      ...(item.actionParams === null ? {} : { actionParams: item.actionParams }),
    };
    await checkStart(snapshot, connections, target, start);
    const { item: retry } = await enqueue(db, {
      ...newItem(ctx, target, start),
      maxAttempts: attemptsOf(snapshot, target.id),
      retryOf: item.id,
    });
    ctx.status = 201;
    ctx.set('Location', itemUrl(retry));
    ctx.body = queueItemJson(retry);
  });
}

/**
 * The processes whose items the client may list, for the query's `IN`; undefined: any. `sync`, when
 * asked for, narrows it to that one (an id of any case naming a defined sync or flow becomes its
 * id; one no longer defined is taken as written, so the items of a removed sync stay listable).
 */
function readableProcesses(principal: Principal, snapshot: Snapshot, sync: string | undefined): string[] | undefined {
  if (sync !== undefined) {
    const id = findProcess(snapshot, sync)?.id ?? sync;
    if (!mayRead(principal, snapshot, id)) {
      const message = `Client ${principal.id} may not see the items of ${quoted(sync)}. It may see those of: ${readableIds(principal, snapshot).join(', ') || 'nothing'}.`;
      throw new HttpProblem('not-allowed', message, { errors: [{ path: 'query.sync', message }] });
    }
    return [id];
  }
  return principal.syncs === undefined ? undefined : readableIds(principal, snapshot);
}

/** The allow-listed syncs, and the defined flows made only of them (mayRead). */
function readableIds(principal: Principal, snapshot: Snapshot): string[] {
  const flows = [...snapshot.flows.keys()].filter((id) => mayRead(principal, snapshot, id));
  return [...new Set([...(principal.syncs ?? snapshot.syncs.keys()), ...flows])];
}

async function visibleItem(ctx: Context, db: RuntimeDatabase, principal: Principal, id: string): Promise<QueueRow> {
  const item = await getItem(db, id);
  if (item === undefined || !mayRead(principal, ctx.state.snapshot as Snapshot, item.processId))
    throw new HttpProblem('unknown-queue-item', `There is no queue item ${quoted(id)}. GET /api/queue lists the items you may see.`);
  return item;
}

function wrongStatus(item: QueueRow, needed: QueueStatus, what: string): HttpProblem {
  const why =
    needed === 'Pending'
      ? "only a Pending item can be cancelled: a running one is its worker's to finish, and a finished one stays as it ended"
      : 'only a Failed item can be retried; the retry is a new item, and the failed one stays as it ended';
  return new HttpProblem('wrong-queue-status', `Queue item ${item.id} is ${item.status} and cannot be ${what}: ${why}.`);
}
