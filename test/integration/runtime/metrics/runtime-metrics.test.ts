/**
 * What /metrics tells an operator, on each runtime database (the quickstart on SQLite, PostgreSQL
 * and MariaDB through engineApp): the queue by status and sync and the age of the oldest Pending
 * item as items are added and run, run durations and record counts after runs, webhook calls by
 * webhook name and status (never the webhook's id), reloads that swapped or were refused, and the
 * connection pools. Queue gauges are read from the database at most every two seconds, so the
 * tests wait for a value rather than expect it at once.
 */
import assert from 'node:assert/strict';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from '../../../../runtime/daemon/daemon.js';
import { enqueue } from '../../../../runtime/queue/enqueue.js';
import { getItem } from '../../../../runtime/queue/get-item.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { engineApp, type HttpApp } from '../../../support/http-app.js';
import { sample } from '../../../support/prometheus-text.js';

const syncId = 'crm-customers-to-erp';
const webhookPath = '/api/webhooks/wh_crmCustomerChanged01';
const webhookName = 'CRM customer changed';
const webhookSecret = { service_webhooksecret: 'quickstart-webhook-secret' };

await describeEachDatabase('runtime metrics', (database) => {
  describe('on the quickstart', () => {
    let app: HttpApp;
    before(async () => {
      app = await engineApp(database(), { watch: true });
    });
    after(() => app?.close());

    const metrics = async (): Promise<string> => {
      const answer = await app.get('/metrics', null);
      assert.equal(answer.status, 200, answer.text);
      return answer.text;
    };
    /** The metrics once `check` accepts them (the queue gauges lag up to two seconds). */
    const metricsWhen = async (what: string, check: (text: string) => boolean): Promise<string> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const text = await metrics();
        if (check(text)) return text;
        if (Date.now() > deadline)
          throw new Error(
            `/metrics never showed ${what}:\n${text
              .split('\n')
              .filter((l) => l.startsWith('syncline_queue') || l.startsWith('syncline_run'))
              .join('\n')}`,
          );
        await sleep(200);
      }
    };
    const queued = (text: string, status: string, sync = syncId) => sample(text, 'syncline_queue_items', { status, sync });
    const oldest = (text: string) => sample(text, 'syncline_queue_oldest_pending_age_seconds');

    it('shows every defined sync with every status, zero included, and no daemon', async () => {
      const text = await metrics();
      for (const status of ['Pending', 'InProgress', 'Complete', 'Failed']) assert.equal(queued(text, status), 0, status);
      assert.equal(oldest(text), 0);
      assert.equal(sample(text, 'syncline_daemons_active'), 0);
      assert.match(text, /^# TYPE syncline_queue_items gauge$/m);
    });

    let runItems: string[] = [];
    it('counts Pending items by sync and ages the oldest; items of syncs defined no more count as (other)', async () => {
      for (let n = 0; n < 2; n += 1) {
        const added = await app.post('/api/AddAction', { ProcessId: syncId, StartType: 'manual' });
        assert.equal(added.status, 200, added.text);
        runItems.push(added.json.ID as string);
      }
      const { item } = await enqueue(app.db, { processId: 'renamed-away', startType: 'manual' });
      runItems.push(item.id);
      const text = await metricsWhen('the Pending items', (t) => queued(t, 'Pending') === 2 && (oldest(t) ?? 0) > 0.3);
      assert.equal(queued(text, 'Pending', '(other)'), 1);
      assert.doesNotMatch(text, /renamed-away/, 'ids the definitions do not hold are no labels');
      const earlier = oldest(text)!;
      const later = await metricsWhen('the oldest item to age', (t) => (oldest(t) ?? 0) > earlier);
      assert.ok(oldest(later)! < 60);
    });

    it('empties the backlog as a daemon runs the items, and counts the runs and their records', async () => {
      const daemon = await startDaemon({ runner: app.runner, pollIntervalMs: 50 });
      try {
        const deadline = Date.now() + 30_000;
        while (
          !(await Promise.all(runItems.map((id) => getItem(app.db, id)))).every((i) => i?.status === 'Complete' || i?.status === 'Failed')
        ) {
          assert.ok(Date.now() < deadline, 'the daemon runs the items');
          await sleep(50);
        }
      } finally {
        await daemon.stop();
      }
      const direct = await app.post(`/api/ExecuteProcess/${syncId}`, { StartType: 'manual' });
      assert.equal(direct.json.Status, 'Complete', direct.text);
      runItems = [...runItems.slice(0, 2), direct.json.ID as string];

      const text = await metricsWhen('the items run', (t) => queued(t, 'Pending') === 0 && queued(t, 'Complete') === 3);
      assert.equal(oldest(text), 0);
      assert.equal(queued(text, 'Failed', '(other)'), 1, 'the item of an undefined sync failed');

      assert.equal(sample(text, 'syncline_run_duration_seconds_count', { sync: syncId, result: 'Complete' }), 3);
      assert.equal(sample(text, 'syncline_run_duration_seconds_count', { sync: '(other)', result: 'Failed' }), 1);
      const sum = sample(text, 'syncline_run_duration_seconds_sum', { sync: syncId, result: 'Complete' })!;
      assert.ok(sum > 0 && sum < 60, `${sum}`);
      assert.equal(sample(text, 'syncline_run_duration_seconds_bucket', { sync: syncId, result: 'Complete', le: '+Inf' }), 3);
      const items = await Promise.all(runItems.map((id) => getItem(app.db, id)));
      for (const outcome of ['read', 'created', 'updated', 'skipped', 'failed'] as const) {
        const total = items.reduce((n, i) => n + (i?.statistics?.[outcome] ?? 0), 0);
        assert.equal(sample(text, 'syncline_run_records_total', { sync: syncId, outcome }), total, outcome);
      }
      assert.ok(sample(text, 'syncline_run_records_total', { sync: syncId, outcome: 'read' })! >= 15, 'three runs of five customers');
    });

    it('counts webhook calls by webhook name and status, never by id', async () => {
      const call = (path: string, headers: Record<string, string>) =>
        app.call('POST', path, { token: null, headers, body: { id: 2, event: 'customer.updated' } });
      assert.equal((await call(webhookPath, webhookSecret)).status, 200);
      assert.equal((await call(webhookPath, webhookSecret)).status, 200);
      assert.equal((await call(webhookPath, { service_webhooksecret: 'wrong' })).status, 403);
      assert.equal((await call('/api/webhooks/wh_noSuchWebhook0000001', webhookSecret)).status, 404);
      const text = await metrics();
      assert.equal(sample(text, 'syncline_webhook_calls_total', { webhook: webhookName, status: '200' }), 2);
      assert.equal(sample(text, 'syncline_webhook_calls_total', { webhook: webhookName, status: '403' }), 1);
      assert.equal(sample(text, 'syncline_webhook_calls_total', { webhook: '(unknown)', status: '404' }), 1);
      assert.doesNotMatch(text, /wh_crmCustomerChanged01|wh_noSuchWebhook/, 'a webhook id may be the only secret of its URL');
      const pending = await metricsWhen('the items the webhook started', (t) => queued(t, 'Pending') === 2);
      assert.ok((oldest(pending) ?? -1) >= 0);
    });

    it('counts reloads that swapped and edits that were refused, with the last reload time', async () => {
      const before = await metrics();
      assert.equal(sample(before, 'syncline_definitions_reloads_total', { result: 'success' }), 0);
      assert.equal(sample(before, 'syncline_definitions_reloads_total', { result: 'failure' }), 0);
      assert.equal(sample(before, 'syncline_definitions_last_reload_success'), 1);
      const loadedAt = sample(before, 'syncline_definitions_last_reload_timestamp_seconds')!;
      assert.ok(Math.abs(loadedAt - Date.now() / 1000) < 600, 'the start counts as the first load');

      const file = join(app.definitions, 'syncs.yaml');
      const original = await readFile(file, 'utf8');
      const write = async (text: string) => {
        await writeFile(`${file}.tmp`, text);
        await rename(`${file}.tmp`, file);
      };
      const when = async (what: string, check: (text: string) => boolean) => {
        const deadline = Date.now() + 10_000;
        for (;;) {
          const text = await metrics();
          if (check(text)) return text;
          assert.ok(Date.now() < deadline, `reload metrics never showed ${what}`);
          await sleep(30);
        }
      };
      await write(`${original}\n# an edit that changes nothing\n`);
      const swapped = await when('the swap', (t) => sample(t, 'syncline_definitions_reloads_total', { result: 'success' }) === 1);
      assert.equal(sample(swapped, 'syncline_definitions_last_reload_success'), 1);
      assert.ok(sample(swapped, 'syncline_definitions_last_reload_timestamp_seconds')! > loadedAt);

      await write(original.replace('object: Account', 'object: Acount'));
      const refused = await when('the refusal', (t) => sample(t, 'syncline_definitions_reloads_total', { result: 'failure' }) === 1);
      assert.equal(sample(refused, 'syncline_definitions_last_reload_success'), 0, 'a bad edit waits in the files');
      assert.equal(sample(refused, 'syncline_definitions_reloads_total', { result: 'success' }), 1);

      await write(original);
      const mended = await when('the mend', (t) => sample(t, 'syncline_definitions_reloads_total', { result: 'success' }) === 2);
      assert.equal(sample(mended, 'syncline_definitions_last_reload_success'), 1);
    });

    it('shows the runtime database pool and the systems with an open connection', async () => {
      const text = await metrics();
      const max = sample(text, 'syncline_runtime_db_connections_max')!;
      assert.equal(max, app.engine === 'sqlite' ? 1 : 10);
      const used = sample(text, 'syncline_runtime_db_connections', { state: 'used' })!;
      const free = sample(text, 'syncline_runtime_db_connections', { state: 'free' })!;
      assert.ok(used >= 0 && free >= 0 && used + free <= max, `used ${used}, free ${free}, max ${max}`);
      assert.equal(sample(text, 'syncline_runtime_db_pending_acquires'), 0);
      assert.equal(sample(text, 'syncline_system_connections_open'), 2, 'crm and erp, opened by the runs');
    });
  });
});
