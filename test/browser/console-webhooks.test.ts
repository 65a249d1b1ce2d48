/**
 * The console's Webhooks page in a real browser (Debian's Chromium driven by playwright-core)
 * against a served quickstart with a daemon: the list with the webhook's URL and its Copy button,
 * the test dialog — opened from the keyboard, focus inside it and back on its button after Escape —
 * sending typed JSON with Ctrl+Enter (the ticker's lines in order, the response's HTTP status, then
 * the run the call queued followed to Complete), the call log's entry pinned and replayed, the
 * test dialog sending the pinned entry (its ticker in the same order), and the call log filtered by
 * outcome, origin and time and paged past its first 50 entries. Screenshots go into docs/console/ only with
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

  /** The ticker's kinds in the order a test of a startSync webhook streams them. */
  const assertTickerOrder = (lines: string[]) => {
    const kinds = lines.map((line) => line.slice(0, line.indexOf(':')));
    const response = kinds.indexOf('response');
    assert.ok(response > 0, `ticker messages come before the response: ${lines.join(' | ')}`);
    assert.equal(kinds[0], 'start', lines.join(' | '));
    assert.ok(kinds.slice(0, response).includes('queued'), lines.join(' | '));
    assert.ok(kinds.indexOf('run.item') > response, lines.join(' | '));
    assert.equal(kinds.indexOf('run.done'), kinds.length - 2, lines.join(' | '));
    assert.equal(lines.at(-1), 'stream: ended');
  };

  test('the test dialog opens from the keyboard with focus inside, sends typed JSON with Ctrl+Enter, shows the ticker in order, and gives focus back on Escape', async () => {
    await page.getByRole('link', { name: webhookId }).click();
    await page.getByRole('heading', { name: `Webhook ${webhookId}` }).waitFor();
    const opener = page.getByRole('button', { name: 'Open the test dialog' });
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Test webhook ${webhookId}` });
    await dialog.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.closest('dialog')?.open === true), true, 'focus moved into the dialog');
    assert.equal(await dialog.getByLabel('Send').evaluate((select) => select === document.activeElement), true, 'on its first field');

    await dialog.getByLabel('JSON data').fill('{"id": 1, "event": "customer.updated"}');
    await dialog.getByLabel('JSON data').press('Control+Enter');
    const ticker = dialog.getByRole('log', { name: 'Ticker' });
    await ticker.getByText(/^run\.done: run \S+ Complete/).waitFor({ timeout: 30_000 });
    await ticker.getByText('stream: ended').waitFor();
    await dialog
      .locator('.response-status')
      .getByText(/^HTTP 2\d\d$/)
      .waitFor();
    assert.match((await dialog.locator('pre.sent').textContent()) ?? '', /"event": "customer.updated"/);
    assertTickerOrder(await linesOf(ticker));
    await screenshot(page, 'webhook-test');

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await opener.evaluate((button) => button === document.activeElement), true, 'focus back on the button that opened it');
    assert.deepEqual(cspViolations(), []);
  });

  test('the call log shows the test newest first; its entry is pinned, replayed, and sent again from the test dialog in the same order', async () => {
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
    await page.getByRole('button', { name: 'Open the test dialog' }).click();
    const dialog = page.getByRole('dialog', { name: `Test webhook ${webhookId}` });
    const pinned = dialog.getByLabel('Send');
    await pinned.locator('option', { hasText: 'pinned entry' }).waitFor({ state: 'attached' });
    await pinned.selectOption({ index: 1 });
    await dialog.getByRole('button', { name: 'Send test' }).press('Enter');
    const ticker = dialog.getByRole('log', { name: 'Ticker' });
    await ticker.getByText('stream: ended').waitFor({ timeout: 30_000 });
    assert.match((await dialog.locator('pre.sent').textContent()) ?? '', /"pin": "/);
    assertTickerOrder(await linesOf(ticker));
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.deepEqual(cspViolations(), []);
  });

  test('the call log is filtered by outcome, origin and time, and paged past its first 50 entries', async () => {
    // 55 calls of the URL that the condition stops (event customer.deleted): logged, answered 204, nothing queued.
    for (let i = 0; i < 55; i += 1) {
      const answer = await fetch(`${served.base}/api/webhooks/${webhookId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', service_webhooksecret: 'quickstart-webhook-secret' },
        body: JSON.stringify({ id: i, event: 'customer.deleted' }),
      });
      assert.equal(answer.status, 204, await answer.text());
    }
    // And one the request schema refuses (no event): 400.
    const refused = await fetch(`${served.base}/api/webhooks/${webhookId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', service_webhooksecret: 'quickstart-webhook-secret' },
      body: JSON.stringify({ id: 1 }),
    });
    assert.equal(refused.status, 400);

    const log = page.getByRole('table', { name: 'Calls, newest first' });
    const filters = page.getByRole('form', { name: 'Filter the call log' });
    const pager = page.getByRole('navigation', { name: 'Call log pages' });
    const apply = () => filters.getByRole('button', { name: 'Apply filters' }).click();
    const rows = () =>
      log.getByRole('row').evaluateAll((all) => all.slice(1).map((row) => [...row.children].map((cell) => cell.textContent ?? '')));

    await page.getByRole('button', { name: 'Refresh log' }).click();
    await log.getByRole('cell', { name: '400', exact: true }).first().waitFor();
    // Paging: 50 entries, then the older ones; no entry twice; back again with Newer.
    const firstPage = await rows();
    assert.equal(firstPage.length, 50);
    await pager.getByRole('button', { name: 'Older' }).click();
    await log.getByRole('cell', { name: 'test', exact: true }).first().waitFor();
    const secondPage = await rows();
    assert.ok(secondPage.length >= 6, `the rest: ${secondPage.length}`);
    const ids = new Set(firstPage.map((row) => row[0]));
    assert.ok(
      secondPage.every((row) => !ids.has(row[0])),
      'no entry on both pages',
    );
    assert.equal(await pager.getByRole('button', { name: 'Older' }).isDisabled(), true, 'the last page');
    await pager.getByRole('button', { name: 'Newer' }).click();
    await log.getByRole('cell', { name: '400', exact: true }).first().waitFor();
    assert.deepEqual(
      (await rows()).map((row) => row[0]),
      firstPage.map((row) => row[0]),
    );

    // Each filter is waited for by the one row it leaves, which the list before it did not show alone.
    const onlyRow = (cell: string) =>
      log
        .locator('tbody tr:only-child')
        .filter({ has: page.getByRole('cell', { name: cell, exact: true }) })
        .waitFor();
    // Outcome 4xx: the refused call alone.
    await filters.getByLabel('Outcome').selectOption('4xx');
    await apply();
    await onlyRow('400');
    assert.deepEqual(
      (await rows()).map((row) => [row[2], row[3]]),
      [['call', '400']],
    );
    await screenshot(page, 'webhook-log-filtered');
    // Origin replay, any outcome: the replay of the test before.
    await filters.getByLabel('Outcome').selectOption('');
    await filters.getByLabel('Origin').selectOption('replay');
    await apply();
    await onlyRow('replay');
    assert.deepEqual(
      (await rows()).map((row) => row[2]),
      ['replay'],
    );
    // Pinned only: the entry pinned before.
    await filters.getByLabel('Origin').selectOption('');
    await filters.getByLabel('Pinned only').check();
    await apply();
    await onlyRow('pinned');
    assert.deepEqual(
      (await rows()).map((row) => row[5]),
      ['pinned'],
    );
    // From tomorrow on: nothing.
    await filters.getByLabel('Pinned only').uncheck();
    const tomorrow = await page.evaluate(() => {
      const at = new Date(Date.now() + 86_400_000);
      return `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}T00:00:00`;
    });
    await filters.getByLabel('From').fill(tomorrow);
    await apply();
    await page.getByText('No calls match.').waitFor();
    assert.deepEqual(cspViolations(), []);
  });
});
