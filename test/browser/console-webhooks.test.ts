/**
 * The console's Webhooks page in a real browser (Debian's Chromium driven by playwright-core)
 * against a served quickstart with a daemon: the list with the webhook's URL and its Copy button,
 * the test dialog with typed JSON (the ticker's lines in order, the response's HTTP status, then
 * the run the call queued followed to Complete), the call log's entry pinned and replayed, and
 * the test dialog sending the pinned entry. Screenshots go into docs/console/ only with
 * SYNCLINE_UPDATE_SCREENSHOTS=1, else into a temporary folder (as console.test.ts). No page may log
 * a Content-Security-Policy violation.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { projectRoot } from '../support/cli-process.js';
import { adminToken, buildConsole, chromiumSkip, launchChromium, serveQuickstart, type ServedConsole } from './served-console.js';

const skip = chromiumSkip();
const screenshots =
  process.env.SYNCLINE_UPDATE_SCREENSHOTS === '1' ? join(projectRoot, 'docs', 'console') : mkdtempSync(join(tmpdir(), 'syncline-console-'));
const screenshot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
const webhookId = 'wh_crmCustomerChanged01';

/** The ticker's lines, each as "kind: message". */
const linesOf = (ticker: Locator) => ticker.getByRole('listitem').allInnerTexts();

describe('the console: webhooks', { skip }, () => {
  let served: ServedConsole;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const messages: string[] = [];
  const cspViolations = () => messages.filter((text) => /Content Security Policy|Refused to/i.test(text));

  before(async () => {
    buildConsole();
    [served, browser] = await Promise.all([serveQuickstart({ daemon: true }), launchChromium()]);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.base });
    page = await browser.context.newPage();
    page.on('console', (message) => messages.push(message.text()));
    page.on('pageerror', (error) => messages.push(String(error)));
    await page.goto(`${served.base}/console`);
    await page.getByLabel('API token').fill(adminToken);
    await page.getByLabel('API token').press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await served?.close();
  });

  test('the list shows the webhook with its URL, action and state, and Copy puts the full URL on the clipboard', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: webhookId });
    await row.getByText(`/api/webhooks/${webhookId}`).waitFor();
    await row.getByText('startSync (crm-customers-to-erp)').waitFor();
    await row.getByRole('cell', { name: 'yes' }).waitFor();
    await row.getByRole('button', { name: `Copy the URL of ${webhookId}` }).click();
    const url = `${served.base}/api/webhooks/${webhookId}`;
    await page.getByRole('status').getByText(`Copied ${url}`).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url);
    await screenshot(page, 'webhooks');
    assert.deepEqual(cspViolations(), []);
  });

  test('the test dialog sends typed JSON: the sent data, the ticker in order, the HTTP status, then the queued run to Complete', async () => {
    await page.getByRole('link', { name: webhookId }).click();
    await page.getByRole('heading', { name: `Webhook ${webhookId}` }).waitFor();
    await page.getByLabel('JSON data').fill('{"id": 1, "event": "customer.updated"}');
    await page.getByRole('button', { name: 'Send test' }).click();
    const ticker = page.getByRole('log', { name: 'Ticker' });
    await ticker.getByText(/^run\.done: run \S+ Complete/).waitFor({ timeout: 30_000 });
    await ticker.getByText('stream: ended').waitFor();
    await page
      .locator('.response-status')
      .getByText(/^HTTP 2\d\d$/)
      .waitFor();
    assert.match((await page.locator('pre.sent').textContent()) ?? '', /"event": "customer.updated"/);

    const lines = await linesOf(ticker);
    const kinds = lines.map((line) => line.slice(0, line.indexOf(':')));
    const response = kinds.indexOf('response');
    assert.ok(response > 0, `ticker messages come before the response: ${lines.join(' | ')}`);
    assert.equal(kinds[0], 'start', lines.join(' | '));
    assert.ok(kinds.slice(0, response).includes('queued'), lines.join(' | '));
    assert.ok(kinds.indexOf('run.item') > response, lines.join(' | '));
    assert.equal(kinds.indexOf('run.done'), kinds.length - 2, lines.join(' | '));
    assert.equal(lines.at(-1), 'stream: ended');
    await screenshot(page, 'webhook-test');
    assert.deepEqual(cspViolations(), []);
  });

  test('the call log shows the test newest first; its entry is pinned, replayed, and sent again from the test dialog', async () => {
    const log = page.getByRole('table', { name: 'Calls, newest first' });
    const first = log.getByRole('row').nth(1);
    await first.getByRole('cell', { name: 'test', exact: true }).waitFor();
    await first.getByRole('link').first().click();
    const entry = page.getByRole('region', { name: /^Entry / });
    await entry.locator('pre.payload').getByText('"event": "customer.updated"').waitFor();
    assert.ok((await linesOf(entry.getByRole('list', { name: 'Ticker of the entry' }))).length > 0);

    await entry.getByRole('button', { name: 'Pin', exact: true }).click();
    await entry.getByRole('status').getByText('Pinned.').waitFor();
    await entry.getByRole('button', { name: 'Unpin' }).waitFor();
    await entry.getByRole('button', { name: 'Replay' }).click();
    await entry
      .getByRole('status')
      .getByText(/^Replayed as entry \S+: HTTP 2\d\d$/)
      .waitFor();
    await log.getByRole('row').nth(1).getByRole('cell', { name: 'replay', exact: true }).waitFor();
    await screenshot(page, 'webhook-entry');

    // The pinned entry is offered by the test dialog, and sent again as it was.
    const pinned = page.getByLabel('Send');
    await pinned.locator('option', { hasText: 'pinned entry' }).waitFor({ state: 'attached' });
    await pinned.selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Send test' }).click();
    const ticker = page.getByRole('log', { name: 'Ticker' });
    await ticker.getByText(/^run\.done: run \S+ Complete/).waitFor({ timeout: 30_000 });
    assert.match((await page.locator('pre.sent').textContent()) ?? '', /"pin": "/);
    assert.deepEqual(cspViolations(), []);
  });
});
