/**
 * The test files of docs/testing-webhooks-and-syncs.md, run as written against the quickstart: each
 * case passes, so the page cannot promise what the runners do not do. (The page's examples are
 * `yml` blocks: they are test files, not definitions, which the docs test loads from `yaml` blocks.)
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { parse } from 'yaml';
import type { Snapshot } from '../../../../definitions/snapshot.js';
import { runSyncCase } from '../../../../runtime/testing/cases/sync-case.js';
import { runWebhookCase } from '../../../../runtime/testing/cases/webhook-case.js';
import type { SyncCase, WebhookCase } from '../../../../runtime/testing/test-case.js';
import { page } from '../../../support/doc-examples.js';
import { failuresOf, loadSnapshot, quickstartDirectory, run, syncCase, webhookCase } from './case-support.js';

const text = page('docs/testing-webhooks-and-syncs.md');
const files = [...text.matchAll(/^```yml\n([\s\S]*?)^```$/gm)].map((match) => parse(match[1]!) as { kind: string; cases: unknown[] });

let snapshot: Snapshot;
before(async () => {
  snapshot = await loadSnapshot(quickstartDirectory);
});

test('the page shows test files with webhook and sync cases', () => {
  assert.deepEqual(
    files.map((file) => file.kind),
    ['Test', 'Test'],
  );
  assert.ok(files.flatMap((file) => file.cases).length >= 6);
});

test('every case of the page passes against the quickstart', async () => {
  for (const written of files.flatMap((file) => file.cases) as Array<Record<string, unknown>>) {
    const { name, ...fields } = written;
    if ('webhook' in fields) {
      const testCase = webhookCase(fields as Omit<WebhookCase, 'kind' | 'file' | 'at' | 'name'>);
      assert.deepEqual(failuresOf(await run(runWebhookCase, snapshot, testCase), testCase), [], String(name));
    } else {
      const testCase = syncCase(fields as Omit<SyncCase, 'kind' | 'file' | 'at' | 'name'>);
      assert.deepEqual(failuresOf(await run(runSyncCase, snapshot, testCase), testCase), [], String(name));
    }
  }
});

test('the run lines the page shows are the lines a queued run gives', async () => {
  const [complete, error] = /^```text\n(run: .*)\n(run error: .*)\n```$/m.exec(text)!.slice(1);
  const testCase = webhookCase({
    webhook: 'wh_crmCustomerChanged01',
    request: { body: { id: 7, event: 'customer.updated' } },
    systems: {
      crm: {
        Customer: [
          { id: 1, name: 'Ada Lovelace', email: 'ada@example.com', active: true },
          { id: 7, email: 'nameless@example.com', active: true },
        ],
      },
    },
    expect: { status: 200, ticker: [error!] },
  });
  const outcome = await run(runWebhookCase, snapshot, testCase);
  assert.deepEqual(failuresOf(outcome, testCase), []);
  assert.match(complete!, /^run: crm-customers-to-erp Complete \(read \d+, created \d+, updated \d+, skipped \d+, failed \d+\)$/);
});
