/**
 * The operator console in a real browser (Debian's Chromium driven by playwright-core) against a
 * served quickstart, asserting what an operator sees: sign-in (a wrong token, a token without the
 * console scope, the admin token), the overview's counts, a sync started from the Queue page with
 * a start type, WhereClause and ActionParams and watched to Complete with its record error and
 * source id, the queue list filtered by time of creation and of finish, a sync that really fails
 * (its target table is missing) shown Failed after both its attempts with its record errors,
 * source ids and timeline, a Pending item cancelled (it ends Failed with its error) and retried,
 * and sign-out. Every page is saved as a screenshot: into
 * docs/console/, which README.md shows, when SYNCLINE_UPDATE_SCREENSHOTS=1 (ids and times differ
 * on every run, so an ordinary `npm test` must not leave the checkout changed), else into a
 * temporary folder. No page may log a Content-Security-Policy violation.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
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

/** The browser's local time `offsetMs` from now, as a datetime-local input takes it (to the second). */
function localInput(page: Page, offsetMs: number): Promise<string> {
  // No named helper inside: the test's compiler would wrap it in a function the page lacks.
  return page.evaluate((offset) => {
    const at = new Date(Date.now() + offset);
    return [at.getFullYear(), at.getMonth() + 1, at.getDate(), at.getHours(), at.getMinutes(), at.getSeconds()]
      .map((part, index) => (index === 0 ? String(part) : String(part).padStart(2, '0')))
      .reduce((text, part, index) => text + ['', '-', '-', 'T', ':', ':'][index] + part, '');
  }, offsetMs);
}

/**
 * A sync that fails for real: its target, a System on the ERP database, names a table that does not
 * exist, so the run stops at the match search (retryable: a table may come back) after its mapping
 * failed customer 4 on purpose; with one retry a second later the item ends Failed after two
 * attempts, each with its stop and its record error.
 */
const failingSync = `kind: System
id: archive
name: Archive (its table is missing)
connector: sql
connection: { client: sqlite3, filename: "\${env:ERP_DB}" }
objects:
  Account:
    table: archived_accounts
    key: [AccountNumber]
    fields:
      AccountNumber: { type: String, required: true }
      AccountName: { type: String }
---
kind: Sync
id: crm-customers-to-archive
name: CRM customers → a missing archive table
source: { system: crm, object: Customer, where: "active = 1", order: id asc }
target: { system: archive, object: Account }
mapping: 'id = 4 ? $error("customer 4 is not to be archived") : { "AccountNumber": "C-" & $string(id), "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
retries: { max: 1, backoff: 1s }
`;

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
      serveQuickstart({ daemon: true, erpSql: hold, files: { 'failing.yaml': failingSync } }),
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

  test('a sync started with a start type, WhereClause and ActionParams is watched to Complete, with its record error and source id', async () => {
    const { page, cspViolations } = await openPage(browser, served.base);
    await signIn(page, adminToken);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Queue' }).click();
    await page.getByRole('heading', { name: 'Queue', exact: true }).waitFor();
    const start = page.getByRole('form', { name: 'Start a sync' });
    await start.getByLabel('Sync or flow').fill('crm-customers-to-erp');
    await start.getByLabel('Start type').selectOption('manual');
    await start.getByLabel('WhereClause (optional)').fill('id <= 4');
    // The quickstart's filter takes #params.id#: only customer 2, whose account the ERP holds.
    await start.getByLabel('ActionParams (optional JSON)').fill('{"id": "2"}');
    await start.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: /^Queue item / }).waitFor();
    const itemId = new URL(page.url()).pathname.split('/').pop()!;
    // The page follows the item's event stream until the run ends.
    await page.getByRole('status').getByText('Complete').waitFor({ timeout: 30_000 });
    await page.getByText('id <= 4').waitFor();
    const statistics = page.getByRole('table', { name: 'Statistics of the last attempt' });
    assert.deepEqual(await statistics.getByRole('cell').allTextContents(), ['1', '0', '0', '0', '1']);
    const errors = page.getByRole('table', { name: 'Errors of every attempt, oldest first' });
    // The row of the refused record: its source id, and the runtime's message (driver text stays in the log).
    const cells = await errors.getByRole('row').nth(1).getByRole('cell').allTextContents();
    assert.equal(cells[1], '2', cells.join(' | '));
    assert.equal(cells[2], "system 'erp': the database refused writing Account: a constraint of the database is violated");
    await screenshot(page, 'queue-item');

    await page.getByRole('link', { name: 'Back to the queue' }).click();
    const list = page.getByRole('table', { name: 'Queue items, newest first' });
    // Its own row: the quickstart's 15-minute schedule may have run an item of the same sync meanwhile.
    const row = list.getByRole('row').filter({ has: page.getByRole('rowheader', { name: itemId.slice(0, 8), exact: true }) });
    await row.getByRole('cell', { name: 'Complete' }).waitFor();
    await screenshot(page, 'queue');
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });

  test('the queue list is filtered by the time items were created or finished', async () => {
    const { page, cspViolations } = await openPage(browser, served.base);
    await signIn(page, adminToken);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Queue' }).click();
    const filters = page.getByRole('form', { name: 'Filter the queue' });
    const list = page.getByRole('table', { name: 'Queue items, newest first' });
    const apply = async (timeOf: 'creation' | 'finish', from: string, to: string) => {
      await filters.getByLabel('Time of').selectOption({ label: timeOf });
      await filters.getByLabel('From').fill(from);
      await filters.getByLabel('To').fill(to);
      await filters.getByRole('button', { name: 'Apply filters' }).click();
    };
    const hourAgo = await localInput(page, -3_600_000);
    const inAnHour = await localInput(page, 3_600_000);
    const tomorrow = await localInput(page, 86_400_000);
    // Created from tomorrow on: nothing yet.
    await filters.getByLabel('Sync').fill('crm-customers-to-erp');
    await apply('creation', tomorrow, '');
    await page.getByText('No queue items match.').waitFor();
    // Finished within the last hour: the run of the test before, and only finished items.
    await apply('finish', hourAgo, inAnHour);
    await list.getByRole('cell', { name: 'Complete', exact: true }).first().waitFor();
    const finished = await list
      .getByRole('row')
      .evaluateAll((rows) => rows.slice(1).map((row) => [row.children[2]?.textContent, row.children[5]?.textContent]));
    assert.ok(finished.length >= 1, 'at least the run of the test before');
    assert.ok(
      finished.every(([status, at]) => (status === 'Complete' || status === 'Failed') && at !== '—'),
      JSON.stringify(finished),
    );
    await screenshot(page, 'queue-filtered');
    // Finished from tomorrow on: nothing.
    await apply('finish', tomorrow, '');
    await page.getByText('No queue items match.').waitFor();
    // A range that ends before it starts is the API's 400, said on the page.
    await apply('creation', inAnHour, hourAgo);
    await page
      .getByRole('alert')
      .getByText(/createdTo: a time after createdFrom/)
      .waitFor();
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });

  test('a sync that fails for real shows Failed after both attempts, with its record errors, source ids and timeline', async () => {
    const { page, cspViolations } = await openPage(browser, served.base);
    await signIn(page, adminToken);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Queue' }).click();
    const start = page.getByRole('form', { name: 'Start a sync' });
    await start.getByLabel('Sync or flow').fill('crm-customers-to-archive');
    await start.getByLabel('Start type').selectOption('manual');
    await start.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('heading', { name: /^Queue item / }).waitFor();
    // The first attempt fails, the item waits its backoff (1 s), the second fails for good.
    await page.getByRole('status').getByText('Failed').waitFor({ timeout: 30_000 });
    const fields = page.locator('dl.fields');
    assert.equal(await fields.locator('dt:text-is("Attempts") + dd').textContent(), '2');
    const statistics = page.getByRole('table', { name: 'Statistics of the last attempt' });
    // Customers 1, 2, 4, 5 and 6 are active; 4 failed in the mapping; the run stopped before writing.
    assert.deepEqual(await statistics.getByRole('cell').allTextContents(), ['5', '0', '0', '0', '1']);

    const errors = page.getByRole('table', { name: 'Errors of every attempt, oldest first' });
    const rows = await errors
      .getByRole('row')
      .evaluateAll((all) => all.slice(1).map((row) => [...row.children].slice(1).map((cell) => cell.textContent ?? '')));
    assert.equal(rows.length, 4, JSON.stringify(rows));
    for (const attempt of [rows.slice(0, 2), rows.slice(2)]) {
      // Each attempt: the reason it stopped (no source id), then the failed record with its source id.
      const [stop, record] = attempt as [string[], string[]];
      assert.equal(stop[0], '—');
      // The target's writes look their records up themselves, so the first write meets the missing table.
      assert.match(stop[1]!, /^writing archive\/Account: system 'archive': .*a table that does not exist/, stop[1]);
      assert.deepEqual(record, ['4', 'mapping: customer 4 is not to be archived']);
    }

    const timeline = page.getByRole('list', { name: 'Timeline' });
    const moments = (await timeline.getByRole('listitem').allInnerTexts()).map((line) =>
      line.replace(/^.*?(Created|Started|Attempt|Error|Finished)/, '$1'),
    );
    assert.match(moments[0]!, /^Created \(manual\)$/);
    assert.equal(moments.at(-1), 'Finished Failed');
    assert.ok(moments.includes('Attempt 2 started'), moments.join(' | '));
    assert.equal(
      moments.filter((line) => line === 'Error (source id 4): mapping: customer 4 is not to be archived').length,
      2,
      moments.join(' | '),
    );
    // The second attempt starts after the first one's errors and before its own.
    const second = moments.indexOf('Attempt 2 started');
    assert.deepEqual(
      moments.slice(1, second).map((line) => line.slice(0, 5)),
      ['Error', 'Error'],
      moments.join(' | '),
    );
    await screenshot(page, 'failed-item');
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

  test('the console is small: its JavaScript, compressed, stays under 150 KB', () => {
    const assets = join(projectRoot, 'dist', 'console', 'assets');
    const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
    assert.ok(scripts.length > 0, 'a built script');
    const compressed = scripts.reduce((total, name) => total + gzipSync(readFileSync(join(assets, name)), { level: 9 }).length, 0);
    assert.ok(compressed < 150 * 1024, `${compressed} bytes of compressed JavaScript`);
  });
});
