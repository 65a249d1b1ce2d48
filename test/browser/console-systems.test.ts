/**
 * The console's Systems and Definitions pages in Chromium against a served quickstart: a system's
 * capabilities, objects, fields (with key, required, read-only and typed groups) and queries shown
 * before anything is read, the crm Customer read with a WHERE, ORDER and LIMIT showing its rows, a bad WHERE shows the
 * API's problem, a free SQLite query shows its rows; Definitions lists the quickstart's
 * definitions, and a broken YAML file written into the served definitions directory shows its
 * problem as file:line:col once the runtime has reloaded (the page is refreshed through its own
 * button until it does). Screenshots as in console.test.ts: into docs/console/ only with
 * SYNCLINE_UPDATE_SCREENSHOTS=1. No page may log a Content-Security-Policy violation.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { projectRoot } from '../support/cli-process.js';
import { adminToken, buildConsole, chromiumSkip, launchChromium, serveQuickstart, type ServedConsole } from './served-console.js';

const skip = chromiumSkip();
const screenshots =
  process.env.SYNCLINE_UPDATE_SCREENSHOTS === '1' ? join(projectRoot, 'docs', 'console') : mkdtempSync(join(tmpdir(), 'syncline-console-'));
const screenshot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });

describe('the console: systems and definitions', { skip }, () => {
  let served: ServedConsole;
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  before(async () => {
    buildConsole();
    [served, browser] = await Promise.all([serveQuickstart({ daemon: false }), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await served?.close();
  });

  /** A signed-in page on `link` of the navigation, with every console message recorded. */
  async function openSignedIn(link: string) {
    const page = await browser.context.newPage();
    const messages: string[] = [];
    page.on('console', (message) => messages.push(message.text()));
    page.on('pageerror', (error) => messages.push(String(error)));
    await page.goto(`${served.base}/console`);
    await page.getByLabel('API token').fill(adminToken);
    await page.getByLabel('API token').press('Enter');
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
    await page.getByRole('heading', { name: link, exact: true }).waitFor();
    return { page, cspViolations: () => messages.filter((text) => /Content Security Policy|Refused to/i.test(text)) };
  }

  test("a system's objects and fields show before any read; a read of crm Customer with WHERE, ORDER and LIMIT shows its rows; a bad WHERE shows the problem", async () => {
    const { page, cspViolations } = await openSignedIn('Systems');
    const systems = page.getByRole('table', { name: 'Connected systems and their objects' });
    await systems.getByRole('rowheader', { name: 'crm' }).waitFor();
    assert.deepEqual(await systems.getByRole('row').nth(1).getByRole('cell').allTextContents(), [
      'CRM (customers and their addresses)',
      'sql',
      'Customer',
      'systems.yaml:6',
    ]);
    await page.getByLabel('System').selectOption('crm');
    // Before any read: what the connector can do, the object's key and fields with its typed group, the queries.
    await page.getByText(/^Connector sql\. Can: filters run in the system, limit, skip, order, count, typed groups/).waitFor();
    const fields = page.getByRole('table', { name: 'Fields of crm Customer' });
    await fields.waitFor();
    assert.deepEqual(await fields.getByRole('row', { name: /^id / }).getByRole('cell').allTextContents(), ['Integer', 'key', '', 'yes']);
    assert.deepEqual(
      await fields
        .getByRole('row', { name: /^name / })
        .getByRole('cell')
        .allTextContents(),
      ['String', '', 'yes', ''],
    );
    await fields.getByRole('rowheader', { name: 'addresses[main|invoice].city' }).waitFor();
    const queries = page.getByRole('table', { name: 'Queries of crm' });
    assert.deepEqual(
      await queries
        .getByRole('row', { name: /^activeCustomersByCity / })
        .getByRole('cell')
        .first()
        .textContent(),
      'id:Integer, name:String, email:String, city:String',
    );
    assert.equal(await page.getByRole('table', { name: 'Records of crm Customer' }).count(), 0, 'nothing is read yet');
    await screenshot(page, 'systems-objects');

    const read = page.getByRole('form', { name: 'Read crm' });
    await read.getByLabel('Object').selectOption('Customer');
    await read.getByLabel('WHERE').fill('active = 1 AND id > 1');
    await read.getByLabel('ORDER').fill('id asc');
    await read.getByLabel('LIMIT').fill('2');
    await read.getByRole('button', { name: 'Read' }).click();
    const records = page.getByRole('table', { name: 'Records of crm Customer' });
    await records.waitFor();
    const names = await records.getByRole('row').evaluateAll((rows) => rows.slice(1).map((row) => row.children[1]?.textContent));
    assert.deepEqual(names, ['Grace Hopper', 'Katherine Johnson']);
    await page.getByRole('status').getByText('2 of 4 matching record(s).').waitFor();
    await screenshot(page, 'systems');

    await read.getByLabel('WHERE').fill('nosuchfield = 1');
    await read.getByRole('button', { name: 'Read' }).click();
    await page
      .getByRole('alert')
      .getByText(/nosuchfield/)
      .waitFor();
    assert.equal(await records.count(), 0, 'a refused read shows no records');
    assert.equal(await fields.count(), 1, 'the fields stay');
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });

  test('a free query on the SQLite crm shows its rows', async () => {
    const { page, cspViolations } = await openSignedIn('Systems');
    await page.getByLabel('System').selectOption('crm');
    const query = page.getByRole('form', { name: 'Query crm' });
    await query.getByLabel('Statement').fill('SELECT id, name FROM customers WHERE id <= 2 ORDER BY id');
    await query.getByLabel('Columns (name:Type, comma-separated)').fill('id:Integer, name:String');
    await query.getByRole('button', { name: 'Run query' }).click();
    const rows = page.getByRole('table', { name: 'Rows of the query on crm' });
    await rows.waitFor();
    assert.deepEqual(await rows.getByRole('cell').allTextContents(), ['1', 'Ada Lovelace', '2', 'Grace Hopper']);
    // A statement that writes is refused, with the API's problem.
    await query.getByLabel('Statement').fill("UPDATE customers SET name = 'x'");
    await query.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('alert').waitFor();
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });

  test('Definitions lists the quickstart; a broken file shows its problem as file:line:col after the reload', async () => {
    const { page, cspViolations } = await openSignedIn('Definitions');
    const loaded = page.getByRole('table', { name: 'Loaded definitions by kind' });
    await loaded.getByRole('rowheader', { name: 'crm-customers-to-erp' }).waitFor();
    const ids = await loaded.getByRole('rowheader').allTextContents();
    for (const id of ['crm', 'erp', 'crm-customers-to-erp', 'quickstart-operator']) assert.ok(ids.includes(id), ids.join(', '));
    await page.getByText(', without problems.').waitFor();
    await screenshot(page, 'definitions');

    writeFileSync(join(served.dir, 'broken.yaml'), 'kind: System\nid: broken\nobjects: [unclosed\n');
    const problems = page.getByRole('table', { name: 'Problems of the last reload' });
    // The runtime reloads on its own; the operator presses Refresh until the reload shows.
    const deadline = Date.now() + 30_000;
    while (!(await problems.isVisible())) {
      assert.ok(Date.now() < deadline, 'the reload problem did not appear within 30 s');
      await page.getByRole('button', { name: 'Refresh' }).click();
      await problems.waitFor({ timeout: 1_000 }).catch(() => undefined);
    }
    const place = await problems.getByRole('rowheader').first().textContent();
    assert.match(place ?? '', /^broken\.yaml:\d+:\d+$/);
    await page.getByText(/refused; the previous definitions keep serving/).waitFor();
    await screenshot(page, 'definitions-problem');
    assert.deepEqual(cspViolations(), []);
    await page.close();
  });
});
