/**
 * The operator console in a real browser (Debian's Chromium driven by playwright-core) against a
 * served quickstart, asserting what an operator sees: sign-in (a wrong token, a token without the
 * console scope, the admin token), the overview's counts, a sync started from the Queue page and
 * watched to Complete with its record error and source id, a Pending item cancelled (it ends
 * Failed with its error) and retried, and sign-out. Every page is saved as a screenshot: into
 * docs/console/, which README.md shows, when SYNCLINE_UPDATE_SCREENSHOTS=1 (ids and times differ
 * on every run, so an ordinary `npm test` must not leave the checkout changed), else into a
 * temporary folder. No page may log a Content-Security-Policy violation.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { projectRoot } from '../support/cli-process.js';
import {
  adminToken,
  buildConsole,
  chromiumSkip,
  launchChromium,
  operatorToken,
  serveQuickstart,
  type ServedConsole,
} from './served-console.js';

const skip = chromiumSkip();
const screenshots =
  process.env.SYNCLINE_UPDATE_SCREENSHOTS === '1' ? join(projectRoot, 'docs', 'console') : mkdtempSync(join(tmpdir(), 'syncline-console-'));
const screenshot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });

/** The page with every console message recorded, so a CSP violation fails the test that caused it. */
async function openPage(browser: Awaited<ReturnType<typeof launchChromium>>, base: string) {
  const page = await browser.context.newPage();
  const messages: string[] = [];
  page.on('console', (message) => messages.push(message.text()));
  page.on('pageerror', (error) => messages.push(String(error)));
  await page.goto(`${base}/console`);
  return { page, cspViolations: () => messages.filter((text) => /Content Security Policy|Refused to/i.test(text)) };
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('API token').fill(token);
  await page.getByLabel('API token').press('Enter');
}

describe('the operator console', { skip }, () => {
  let served: ServedConsole;
  let idle: ServedConsole;
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  before(async () => {
    buildConsole();
    // A trigger in the ERP refuses one account: a run completes with one record error, naming its source id.
    const hold =
      "CREATE TRIGGER hold BEFORE UPDATE ON accounts WHEN NEW.AccountNumber = 'C-2' BEGIN SELECT RAISE(ABORT, 'account C-2 is on hold'); END;";
    [served, idle, browser] = await Promise.all([
      serveQuickstart({ daemon: true, erpSql: hold }),
      // Without a daemon items stay Pending, so one can be cancelled.
      serveQuickstart({ daemon: false }),
      launchChromium(),
    ]);
  });
  after(async () => {
    await browser?.close();
    await Promise.all([served?.close(), idle?.close()]);
  });

  test('a wrong token and a token without the console scope are refused with what is wrong', async () => {
    const { page, cspViolations } = await openPage(browser, served.base);
    await signIn(page, 'not-a-token-of-this-server');
    await page.getByRole('alert').getByText('The server does not know this token (401).').waitFor();
    await signIn(page, operatorToken);
    await page.getByRole('alert').getByText('This token lacks the scope console (403).').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length + localStorage.length), 0, 'a refused token is not kept');
    await screenshot(page, 'sign-in');
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });

  test('signed in, the overview shows the queue counts, the daemon, the schedule and the version', async () => {
    const { page, cspViolations } = await openPage(browser, served.base);
    await signIn(page, adminToken);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const counts = page.getByRole('table', { name: 'Queue items by status' });
    // The heading shows before the data arrives: wait for the table itself.
    await counts.getByRole('cell').first().waitFor();
    assert.deepEqual(await counts.getByRole('columnheader').allTextContents(), ['Pending', 'InProgress', 'Complete', 'Failed']);
    // What the API counts (the quickstart's 15-minute schedule may have queued a run meanwhile).
    const overview = (await (
      await fetch(`${served.base}/api/console/overview`, { headers: { Authorization: `Bearer ${adminToken}` } })
    ).json()) as { queue: Record<string, number> };
    const expected = ['Pending', 'InProgress', 'Complete', 'Failed'].map((status) => String(overview.queue[status]));
    assert.deepEqual(await counts.getByRole('cell').allTextContents(), expected);
    await page.getByRole('heading', { name: 'Active daemons: 1' }).waitFor();
    const schedules = page.getByRole('table', { name: 'Scheduled syncs and flows' });
    await schedules.getByRole('rowheader', { name: 'CRM customers → ERP accounts (crm-customers-to-erp)' }).waitFor();
    await schedules.getByRole('cell', { name: 'every 15m' }).waitFor();
    await page.getByText(/^Syncline 0\.\d+\.\d+, this process runs the API and a daemon\.$/).waitFor();
    // The token lives in sessionStorage only, never in localStorage or the address.
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('syncline.console.token')), adminToken);
    assert.ok(!page.url().includes(adminToken));
    await screenshot(page, 'overview');
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });

  test('a sync started from the Queue page is watched to Complete, with its record error and source id', async () => {
    const { page, cspViolations } = await openPage(browser, served.base);
    await signIn(page, adminToken);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Queue' }).click();
    await page.getByRole('heading', { name: 'Queue', exact: true }).waitFor();
    const start = page.getByRole('form', { name: 'Start a sync' });
    await start.getByLabel('Sync or flow').fill('crm-customers-to-erp');
    await start.getByLabel('Start type').selectOption('manual');
    await start.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: /^Queue item / }).waitFor();
    // The page follows the item's event stream until the run ends.
    await page.getByRole('status').getByText('Complete').waitFor({ timeout: 30_000 });
    const statistics = page.getByRole('table', { name: 'Statistics of the last attempt' });
    assert.deepEqual(await statistics.getByRole('cell').allTextContents(), ['5', '3', '0', '1', '1']);
    const errors = page.getByRole('table', { name: 'Errors of every attempt, oldest first' });
    // The row of the refused record: its source id, and the runtime's message (driver text stays in the log).
    const cells = await errors.getByRole('row').nth(1).getByRole('cell').allTextContents();
    assert.equal(cells[1], '2', cells.join(' | '));
    assert.equal(cells[2], "system 'erp': the database refused writing Account: a constraint of the database is violated");
    await screenshot(page, 'queue-item');

    await page.getByRole('link', { name: 'Back to the queue' }).click();
    const list = page.getByRole('table', { name: 'Queue items, newest first' });
    await list.getByRole('cell', { name: 'Complete' }).waitFor();
    await screenshot(page, 'queue');
    // A filter that matches nothing says so.
    const filters = page.getByRole('form', { name: 'Filter the queue' });
    await filters.getByLabel('Status').selectOption('Failed');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No queue items match.').waitFor();
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });

  test('a Pending item is cancelled: it ends Failed with its error, and Retry queues it again', async () => {
    const { page, cspViolations } = await openPage(browser, idle.base);
    await signIn(page, adminToken);
    await page.getByRole('link', { name: 'Queue' }).click();
    const start = page.getByRole('form', { name: 'Start a sync' });
    await start.getByLabel('Sync or flow').fill('crm-customers-to-erp');
    await start.getByLabel('WhereClause (optional)').fill('id > 2');
    await start.getByLabel('ActionParams (optional JSON)').fill('{"origin": "console test"}');
    await start.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('status').getByText('Pending').waitFor();
    await page.getByText('id > 2').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('status').getByText('Failed').waitFor();
    const errors = page.getByRole('table', { name: 'Errors of every attempt, oldest first' });
    await errors.getByRole('cell', { name: /cancelled by client admin/ }).waitFor();
    await screenshot(page, 'failed-item');
    const failedUrl = page.url();
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL((url) => url.href !== failedUrl);
    await page.getByRole('status').getByText('Pending').waitFor();
    await page.getByText('Retry of').waitFor();

    // The queue list filtered to Failed shows the cancelled item.
    await page.getByRole('link', { name: 'Back to the queue' }).click();
    const filters = page.getByRole('form', { name: 'Filter the queue' });
    await filters.getByLabel('Status').selectOption('Failed');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    const list = page.getByRole('table', { name: 'Queue items, newest first' });
    // The unfiltered list showed the Failed item too: wait for the retry (Pending) to leave it.
    await list.getByRole('cell', { name: 'Pending', exact: true }).waitFor({ state: 'detached' });
    await list.getByRole('cell', { name: 'Failed', exact: true }).waitFor();
    assert.equal(await list.getByRole('row').count(), 2, 'the header and the one Failed item');
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });

  test('signing out forgets the token and shows the sign-in form again', async () => {
    const { page } = await openPage(browser, served.base);
    await signIn(page, adminToken);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await page.close();
  });

  test('the console is served with a strict Content-Security-Policy; routes of the page answer index.html', async () => {
    const answer = await fetch(`${served.base}/console/queue/some-item`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-security-policy') ?? '', /default-src 'self'.*frame-ancestors 'none'/);
    assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(answer.headers.get('cache-control'), 'no-cache');
    const html = await answer.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /<style|style=/, 'no inline style');
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await fetch(`${served.base}${script}`);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    assert.equal((await fetch(`${served.base}/console/assets/missing.js`)).status, 404);
  });
});
