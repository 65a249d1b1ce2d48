/**
 * GET /api/queue/{id}/events and the webhook test dialog's relayed run, over HTTP on every engine
 * of test/support/databases.ts, with a daemon of the app's runner started only around the tests
 * that need items run:
 * - a run reaching Complete streams item → progress → done in order, and the stream ends;
 * - a Failed run ends with its errors; a finished item gets item and done at once;
 * - the client going away stops the polling (no further reads of the item);
 * - 401, 403 (scope), 404 (unknown, and off the allow-list), 503 with Retry-After past the cap;
 * - the webhook test stream goes on after `response` with the queued run's `run.*` events.
 *
 * The runner's process is wrapped so a run takes long enough to be watched (and reports progress
 * before it starts for real), or fails when its ActionParams say so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { readEventStream } from '../../../../runtime/cli/read-event-stream.js';
import { startDaemon, type Daemon } from '../../../../runtime/daemon/daemon.js';
import { enqueue } from '../../../../runtime/queue/enqueue.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, tokens, type HttpApp } from '../../../support/http-app.js';

const syncId = 'crm-customers-to-erp';
const webhookId = 'wh_crmCustomerChanged01';
const pollIntervalMs = 100;

interface Received {
  event: string;
  data: any;
}

await describeEachDatabase('queue item events', (database) => {
  describe('over HTTP', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), {
        // Progress is stored every third of the lease: every 500 ms here.
        leaseMs: 1500,
        eventStreams: { maxStreams: 3, pollIntervalMs },
        runProcess: (real) => async (environment, start) => {
          const outcome = start.actionParams?.find((param) => param.Name === 'outcome')?.Value;
          start.onProgress?.({ read: 2, created: 1, updated: 1, skipped: 0, failed: 0 });
          await sleep(1200);
          if (outcome === 'fail')
            return {
              status: 'Failed',
              statistics: { read: 2, created: 1, updated: 1, skipped: 0, failed: 0 },
              errors: [{ message: 'the target refused the batch (test)' }],
              retryable: false,
            };
          return real(environment, start);
        },
      });
    });
    after(() => app.close());

    /** Runs `body` with a daemon on the app's runner, so Pending items are run. */
    async function withDaemon<T>(body: () => Promise<T>): Promise<T> {
      const daemon: Daemon = await startDaemon({ runner: app.runner, pollIntervalMs: 50 });
      try {
        return await body();
      } finally {
        await daemon.stop();
      }
    }

    async function add(actionParams?: { Name: string; Value: string }[]): Promise<string> {
      const added = await app.post('/api/AddAction', {
        ProcessId: syncId,
        StartType: 'manual',
        ...(actionParams ? { ActionParams: actionParams } : {}),
      });
      assert.equal(added.status, 200, added.text);
      return added.json.ID as string;
    }

    async function open(id: string, token: string = tokens.admin, signal?: AbortSignal): Promise<Response> {
      return fetch(`${app.base}/api/queue/${id}/events`, { headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
    }

    async function readAll(response: Response): Promise<Received[]> {
      assert.equal(response.status, 200);
      assert.equal((response.headers.get('content-type') ?? '').split(';')[0], 'text/event-stream');
      const events: Received[] = [];
      for await (const event of readEventStream(response.body!)) events.push({ event: event.event, data: JSON.parse(event.data) });
      return events;
    }

    it('streams a run to Complete: item at once, progress on each change, done, then the stream ends', async () => {
      const id = await add();
      const response = await open(id);
      const events = await withDaemon(() => readAll(response));
      const names = events.map((e) => e.event);
      assert.equal(names[0], 'item');
      assert.equal(names.at(-1), 'done');
      assert.ok(
        names.slice(1, -1).every((name) => name === 'progress'),
        names.join(' '),
      );
      assert.equal(events[0]!.data.ID, id);
      assert.equal(events[0]!.data.Status, 'Pending');
      const progress = events.filter((e) => e.event === 'progress').map((e) => e.data);
      assert.ok(
        progress.some((item) => item.Status === 'InProgress' && item.Statistics.Read === 2),
        `the progress stored during the run is streamed: ${JSON.stringify(progress)}`,
      );
      for (const [index, event] of events.entries())
        if (index > 0) assert.notDeepEqual(event.data, events[index - 1]!.data, 'only changes are sent');
      const done = events.at(-1)!.data;
      assert.equal(done.Status, 'Complete');
      assert.deepEqual(done, (await app.get(`/api/GetAction/${id}`)).json, 'done is the item as GetAction answers it');
    });

    it('ends a Failed run with its errors', async () => {
      const id = await add([{ Name: 'outcome', Value: 'fail' }]);
      const events = await withDaemon(async () => readAll(await open(id)));
      const done = events.at(-1)!;
      assert.equal(done.event, 'done');
      assert.equal(done.data.Status, 'Failed');
      assert.match(done.data.Errors[0].Message, /the target refused the batch/);
    });

    it('answers a finished item with item and done at once', async () => {
      const id = await add([{ Name: 'outcome', Value: 'fail' }]);
      await withDaemon(async () => readAll(await open(id)));
      const events = await readAll(await open(id));
      assert.deepEqual(
        events.map((e) => [e.event, e.data.Status]),
        [
          ['item', 'Failed'],
          ['done', 'Failed'],
        ],
      );
    });

    it('stops reading the item when the client goes away', async () => {
      const id = await add();
      const reads: number[] = [];
      // Every read of the item by the stream is a SELECT bound to its id; nothing else reads it
      // while no daemon runs.
      const onQuery = (query: { sql: string; bindings?: unknown[] }) => {
        if (/^select/i.test(query.sql) && query.bindings?.includes(id)) reads.push(Date.now());
      };
      app.db.knex.on('query', onQuery);
      try {
        const client = new AbortController();
        const response = await open(id, tokens.admin, client.signal);
        const events = readEventStream(response.body!);
        assert.equal((await events.next()).value?.event, 'item');
        await sleep(pollIntervalMs * 4);
        assert.ok(reads.length >= 3, `the stream polls while it is open (${reads.length} reads)`);
        client.abort();
        await sleep(pollIntervalMs * 2);
        const afterGone = reads.length;
        await sleep(pollIntervalMs * 6);
        assert.equal(reads.length, afterGone, 'no read after the client went away');
      } finally {
        app.db.knex.off('query', onQuery);
      }
      assert.equal((await app.get(`/api/GetAction/${id}`)).status, 200, 'the process still answers');
      assert.deepEqual(
        app.logs.filter((line) => line.level >= 50),
        [],
        'no error logged',
      );
    });

    it('refuses 401 without a token, 403 without queue:read, 404 for unknown items and items off the allow-list', async () => {
      const id = await add();
      const status = async (path: string, token: string | null) => (await app.get(path, token)).status;
      assert.equal(await status(`/api/queue/${id}/events`, null), 401);
      assert.equal(await status(`/api/queue/${id}/events`, tokens.reader), 403);
      assert.equal(await status('/api/queue/6b1f0c52-3f9e-4d61-9d55-0b7f8a9e2c11/events', tokens.admin), 404);
      assert.equal(await status('/api/queue/not-an-id/events', tokens.admin), 404);
      // An item of a sync off the client's allow-list is answered as unknown, as GetAction does.
      const other = await enqueue(app.db, { processId: 'some-other-sync', startType: 'manual' });
      assert.equal(await status(`/api/queue/${other.item.id}/events`, tokens.queueWriter), 404);
      const client = new AbortController();
      const allowed = await open(id, tokens.queueWriter, client.signal);
      client.abort();
      assert.equal(allowed.status, 200, 'the sync is on its allow-list');
    });

    it('answers 503 with Retry-After past the most streams at once, and frees a place when a stream ends', async () => {
      const id = await add();
      const clients = [new AbortController(), new AbortController(), new AbortController()];
      try {
        for (const client of clients) assert.equal((await open(id, tokens.admin, client.signal)).status, 200);
        const refused = await app.get(`/api/queue/${id}/events`);
        assert.equal(refused.status, 503, refused.text);
        assert.equal(refused.json.type, 'urn:syncline:problem:too-many-streams');
        assert.equal(refused.headers.get('retry-after'), '5');
        clients[0]!.abort();
        const deadline = Date.now() + 5000;
        let again: Response;
        const retry = new AbortController();
        clients.push(retry);
        while ((again = await open(id, tokens.admin, retry.signal)).status !== 200) {
          assert.ok(Date.now() < deadline, 'a place is free again once a client went away');
          await again.text();
          await sleep(50);
        }
      } finally {
        for (const client of clients) client.abort();
      }
      await sleep(pollIntervalMs * 3);
    });

    it('keeps the webhook test stream open after the response with the queued run until it is Complete', async () => {
      const response = await fetch(`${app.base}/api/console/webhooks/${webhookId}/test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: { id: 3, event: 'customer.updated' } }),
      });
      const events = await withDaemon(() => readAll(response));
      const names = events.map((e) => e.event);
      const responseAt = names.indexOf('response');
      assert.ok(responseAt > 0, names.join(' '));
      assert.deepEqual(
        names.slice(0, responseAt).filter((name) => name !== 'ticker'),
        ['sent'],
      );
      const queueItemId = events[responseAt]!.data.queueItemId as string;
      assert.match(queueItemId, /^[0-9a-f-]{36}$/);
      const run = events.slice(responseAt + 1);
      assert.equal(run[0]!.event, 'run.item');
      assert.equal(run[0]!.data.ID, queueItemId);
      assert.equal(run.at(-1)!.event, 'run.done');
      assert.ok(
        run.slice(1, -1).every((e) => e.event === 'run.progress'),
        names.join(' '),
      );
      assert.equal(run.at(-1)!.data.Status, 'Complete');
      assert.deepEqual(run.at(-1)!.data, (await app.get(`/api/GetAction/${queueItemId}`)).json, 'the run as GetAction answers it');
    });
  });
});
