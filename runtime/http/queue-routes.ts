/**
 * The five queue routes of the service: two asynchronous starts (StartProcessAdHoc, AddAction),
 * which only enqueue a Pending item for a daemon; two synchronous ones (StartProcessDirect,
 * ExecuteProcess), which run the process in this request; and GetAction, the status of an item.
 *
 * Status codes, decided here once:
 * - The asynchronous starts answer 200 with the item. The seed's only words for their result are
 *   "Queue item returned" and the only success status it names is 200, so clients written against
 *   the service read the item from a 200; 201 would be more RESTful but breaks clients that test
 *   for 200. `Content-Location` names the item's GetAction URL (RFC 9110 §8.7: the body is that
 *   resource's representation), which is what polling needs.
 * - The synchronous starts answer 200 with the finished item (Complete or Failed: a failed run is
 *   still a run the request did) and its statistics; past `syncTimeLimitMs`, 202 Accepted with the
 *   still-running item and `Location` of GetAction. The run goes on either way.
 * - Every check (scope, allow-list, existence, the body, the WhereClause) comes before anything is
 *   enqueued or run, so a refused request leaves no item behind.
 *
 * Every start takes a sync or a flow. A flow's source id is the GUID of a record stored for its
 * first step (what a webhook's startSync gives a flow): the route does not look it up, as it does
 * not look up a sync's source record — the seed has StartProcessAdHoc always create a Pending item,
 * and the record is the run's to find. A GUID that is not there gives a Complete item with a note
 * saying so (run-flow.ts), never a silent full run.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import { HttpProblem } from '../errors.js';
import { concurrencyOf } from '../execution/concurrency-of.js';
import { attemptsOf } from '../execution/retry-of.js';
import type { ItemRunner } from '../execution/run-held-item.js';
import { enqueue, type NewQueueItem } from '../queue/enqueue.js';
import { getItem } from '../queue/get-item.js';
import { queueItemJson, valueLimits, type QueueRow } from '../queue/queue-item.js';
import { requireScope } from './auth.js';
import { parseAddActionBody, parseExecuteProcessBody, type StartRequest } from './queue-body.js';
import { readJsonBody } from '../request/read-body.js';
import { mayRead, quoted, resolveProcess, type ProcessTarget } from './resolve-process.js';
import { requestIdOf } from './request-id.js';
import { runDirect } from './run-direct.js';
import { checkSourceId } from './source-id.js';
import { checkWhereClause } from './where-clause.js';

export interface QueueRouteOptions {
  db: RuntimeDatabase;
  /** The systems' connections, which check a source id as a read by it would. */
  connections: ConnectionProvider;
  runner: ItemRunner;
  /** How long StartProcessDirect and ExecuteProcess wait for the run before answering 202. */
  syncTimeLimitMs: number;
  bodyLimit: number;
}

export function queueRoutes(router: Router, { db, connections, runner, syncTimeLimitMs, bodyLimit }: QueueRouteOptions): void {
  router.post('/StartProcessAdHoc/:syncId/:sourceId', async (ctx) => {
    const target = resolveProcess(ctx, ctx.params.syncId!);
    const sourceId = await sourceIdOf(ctx.state.snapshot as Snapshot, connections, target, ctx.params.sourceId!);
    const { item } = await enqueue(db, {
      ...newItem(ctx, target, { startType: 'AdHoc', sourceId }),
      maxAttempts: attemptsOf(ctx.state.snapshot as Snapshot, target.id),
    });
    answer(ctx, 200, item);
  });

  router.post('/AddAction', async (ctx) => {
    requireScope(ctx, 'queue:write');
    const request = parseAddActionBody(await readJsonBody(ctx, bodyLimit));
    const target = resolveProcess(ctx, request.processId);
    await checkStart(ctx.state.snapshot as Snapshot, connections, target, request);
    const { item } = await enqueue(db, {
      ...newItem(ctx, target, request),
      maxAttempts: attemptsOf(ctx.state.snapshot as Snapshot, target.id),
    });
    answer(ctx, 200, item);
  });

  const runInRequest = async (ctx: Context, target: ProcessTarget, request: StartRequest) => {
    // One attempt: the caller waits for this outcome, so a retry must not be scheduled behind its back.
    const snapshot = ctx.state.snapshot as Snapshot;
    const run = await runDirect(runner, snapshot, { ...newItem(ctx, target, request), maxAttempts: 1 }, syncTimeLimitMs);
    if (run.finished) answer(ctx, 200, run.item);
    else {
      ctx.set('Location', itemUrl(run.item));
      answer(ctx, 202, run.item);
    }
  };

  router.post('/StartProcessDirect/:syncId/:sourceId', async (ctx) => {
    const target = resolveProcess(ctx, ctx.params.syncId!);
    await runInRequest(ctx, target, {
      startType: 'AdHoc',
      sourceId: await sourceIdOf(ctx.state.snapshot as Snapshot, connections, target, ctx.params.sourceId!),
    });
  });

  router.post('/ExecuteProcess/:syncId', async (ctx) => {
    const target = resolveProcess(ctx, ctx.params.syncId!);
    const request = parseExecuteProcessBody(await readJsonBody(ctx, bodyLimit));
    await checkStart(ctx.state.snapshot as Snapshot, connections, target, request);
    await runInRequest(ctx, target, request);
  });

  router.get('/GetAction/:queueId', async (ctx) => {
    const principal = requireScope(ctx, 'queue:read');
    const id = ctx.params.queueId!;
    const item = await getItem(db, id);
    // An item of a process outside the client's allow-list is answered exactly like an unknown id
    // (404, not 403): the URL names no sync, so a 403 would confirm that the id exists and leak
    // which work other clients start. Ids are random UUIDs; there is nothing else to reveal.
    if (!item || !mayRead(principal, ctx.state.snapshot as Snapshot, item.processId)) {
      throw new HttpProblem(
        'unknown-queue-item',
        `There is no queue item ${quoted(id)}. Queue item ids are the ID of what StartProcessAdHoc, AddAction, StartProcessDirect and ExecuteProcess answered.`,
      );
    }
    ctx.body = queueItemJson(item);
  });
}

function answer(ctx: Context, status: number, item: QueueRow): void {
  ctx.status = status;
  if (status === 200) ctx.set('Content-Location', itemUrl(item));
  ctx.body = queueItemJson(item);
}

export function itemUrl(item: QueueRow): string {
  return `/api/GetAction/${item.id}`;
}

/** The item a start asks for, on the request's snapshot; it keeps the request's id for the run's log lines. */
export function newItem(ctx: Context, target: ProcessTarget, request: StartRequest): NewQueueItem {
  const concurrency = concurrencyOf(ctx.state.snapshot as Snapshot, target.id);
  const requestId = requestIdOf(ctx);
  return {
    processId: target.id,
    ...(concurrency === undefined ? {} : { concurrency }),
    startType: request.startType,
    ...(request.sourceId === undefined ? {} : { sourceId: request.sourceId }),
    ...(request.whereClause === undefined ? {} : { whereClause: request.whereClause }),
    ...(request.actionParams === undefined ? {} : { actionParams: request.actionParams }),
    ...(requestId === undefined ? {} : { requestId }),
  };
}

/** The {sourceId} of a path: not longer than the limit, and a key value of the process's source. */
async function sourceIdOf(snapshot: Snapshot, connections: ConnectionProvider, target: ProcessTarget, text: string): Promise<string> {
  if (text.length > valueLimits.sourceId) {
    const message = `The source id has ${text.length} characters; at most ${valueLimits.sourceId} are accepted.`;
    throw new HttpProblem('invalid-request', message, { errors: [{ path: 'path.sourceId', message }] });
  }
  await checkSourceId(snapshot, connections, target, text, 'path.sourceId');
  return text;
}

/**
 * What can only be checked knowing the process: the WhereClause must parse against its (first)
 * sync, and a SourceId must be a key value of its source.
 */
export async function checkStart(
  snapshot: Snapshot,
  connections: ConnectionProvider,
  target: ProcessTarget,
  request: StartRequest,
): Promise<void> {
  if (request.whereClause !== undefined) checkWhereClause(snapshot, target, request.whereClause);
  if (request.sourceId !== undefined) await checkSourceId(snapshot, connections, target, request.sourceId, '/SourceId');
}
