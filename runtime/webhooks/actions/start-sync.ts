/**
 * startSync: an ad-hoc queue item for the webhook's sync or flow, executed by the daemon.
 *
 * - The incoming data goes as ActionParams (request-values.ts), or — with `recordStore` — into the
 *   sync's record store, and the item gets only the record's GUID as its SourceId.
 * - A flow has no records of its own: when its first step (through nested flows) is a sync reading
 *   the record store, the data is stored there, whatever `recordStore` says — the seed's way to
 *   start a flow by webhook; otherwise it goes as ActionParams.
 * - An array body is a batch: one stored record and one queue item per element, all enqueued in one
 *   transaction (none when one fails; stored records of a failed batch are deleted again).
 * - The answer is 200 with the queue item JSON (an array of them for an array body), so the caller
 *   can poll GetAction; the log gets the (first) item's id. An empty array starts nothing: 204.
 */
import type { Snapshot, SyncEntry } from '../../../definitions/snapshot.js';
import { concurrencyOf } from '../../execution/concurrency-of.js';
import { attemptsOf } from '../../execution/retry-of.js';
import { writeTransaction } from '../../database/write-transaction.js';
import { insertItem, type NewQueueItem } from '../../queue/enqueue.js';
import { announceWork } from '../../queue/notify.js';
import { queueItemJson, type QueueRow } from '../../queue/queue-item.js';
import { deleteRecords } from '../../record-store/delete-records.js';
import { storeRecords } from '../../record-store/store-record.js';
import { HttpProblem } from '../../errors.js';
import type { WebhookAnswer, WebhookCall } from '../webhook-call.js';
import { actionParamsOf, maxRecordsPerCall, recordsOf } from './request-values.js';

/** The sync a flow's first step runs, through nested flows. */
export function firstSyncOf(snapshot: Snapshot, flowId: string, seen = new Set<string>()): SyncEntry | undefined {
  if (seen.has(flowId)) return undefined;
  seen.add(flowId);
  const first = snapshot.flows.get(flowId)?.definition.steps[0];
  if (first === undefined) return undefined;
  return first.sync !== undefined ? snapshot.syncs.get(first.sync) : firstSyncOf(snapshot, first.flow!, seen);
}

export async function startSync(call: WebhookCall): Promise<WebhookAnswer> {
  const { entry, ticker, snapshot, db } = call;
  const hook = entry.definition;
  const processId = (hook.sync ?? hook.flow)!;
  const kind = hook.sync !== undefined ? 'sync' : 'flow';
  const sync = hook.sync !== undefined ? snapshot.syncs.get(hook.sync) : undefined;
  if (hook.sync !== undefined ? sync === undefined : !snapshot.flows.has(processId)) {
    throw new HttpProblem('action-not-possible', `Webhook ${hook.id}: ${kind} '${processId}' is not defined.`);
  }
  const storeSync = hook.sync !== undefined ? (hook.recordStore ? sync : undefined) : firstSyncOf(snapshot, processId);
  const useStore = storeSync !== undefined && storeSync.definition.source.recordStore === true;
  ticker.say(
    'start',
    `startSync: ${kind} ${processId}, data as ${useStore ? `record-store records of ${storeSync.definition.id}` : 'ActionParams'}`,
  );

  const data = call.request.data;
  const elements = Array.isArray(data) ? data : [data];
  if (elements.length === 0) {
    ticker.say('warning', 'the request holds an empty array: nothing stored, nothing started');
    return { status: 204 };
  }
  if (elements.length > maxRecordsPerCall) recordsOf(data); // refuses with the limit named
  const maxAttempts = attemptsOf(snapshot, processId);
  const concurrency = concurrencyOf(snapshot, processId);
  const base: NewQueueItem = {
    processId,
    startType: 'AdHoc',
    maxAttempts,
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(call.requestId === undefined ? {} : { requestId: call.requestId }),
  };

  let items: NewQueueItem[];
  let guids: string[] = [];
  if (useStore) {
    const records = recordsOf(data);
    guids = await storeRecords(db, storeSync.definition.id, records);
    ticker.say('stored', `stored ${guids.length} record(s) in the record store of ${storeSync.definition.id}`, {
      count: guids.length,
      guids: guids.slice(0, 20),
    });
    items = guids.map((guid) => ({ ...base, sourceId: guid }));
  } else {
    items = elements.map((element) => ({ ...base, actionParams: actionParamsOf(element) }));
  }

  let rows: QueueRow[];
  try {
    const now = new Date();
    // One item is one INSERT, atomic by itself; a transaction would only add BEGIN and COMMIT,
    // which on SQLite are two more turns of its single connection.
    rows =
      items.length === 1
        ? [(await insertItem(db, db.knex, items[0]!, now)).item]
        : await writeTransaction(db, async (trx) => {
            const inserted: QueueRow[] = [];
            for (const item of items) inserted.push((await insertItem(db, trx, item, now)).item);
            return inserted;
          });
  } catch (error) {
    // Records nobody will process would wait in the store for ever.
    if (guids.length > 0) await deleteRecords(db, guids, storeSync!.definition.id).catch(() => undefined);
    throw error;
  }
  await announceWork(db);
  const first = rows[0]!;
  ticker.say(
    'queued',
    rows.length === 1 ? `queue item ${first.id} for ${kind} ${processId}` : `${rows.length} queue items for ${kind} ${processId}`,
    {
      queueItemId: first.id,
      count: rows.length,
    },
  );
  const body = Array.isArray(data) ? rows.map(queueItemJson) : queueItemJson(first);
  return { status: 200, body, queueItemId: first.id };
}
