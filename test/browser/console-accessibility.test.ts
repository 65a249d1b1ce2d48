/**
 * The console's accessibility in Chromium against a served quickstart with a daemon, page by page
 * as an operator reaches them (accessibility.ts): every control named in the accessibility tree,
 * text contrast of at least 4.5:1 (3:1 when large), no positive tabindex; the keyboard's Tab stops
 * in reading order, each showing its focus; and the test dialog trapping the focus while open and
 * giving it back to its button on Escape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { accessibilityFindings, namedControls, tabStops } from './accessibility.js';
import { adminToken, buildConsole, chromiumSkip, launchChromium, serveQuickstart, type ServedConsole } from './served-console.js';

const skip = chromiumSkip();
const webhookId = 'wh_crmCustomerChanged01';

describe('the console: accessibility', { skip }, () => {
  let served: ServedConsole;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const messages: string[] = [];

  before(async () => {
    buildConsole();
    [served, browser] = await Promise.all([serveQuickstart({ daemon: true }), launchChromium()]);
    page = await browser.context.newPage();
    page.on('console', (message) => messages.push(message.text()));
    page.on('pageerror', (error) => messages.push(String(error)));
  });
  after(async () => {
    await browser?.close();
    await served?.close();
  });

  /** Opens `link` of the navigation and waits for its heading and `ready`. */
  const open = async (link: string, ready: () => Promise<unknown>) => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
    await page.getByRole('heading', { name: link, exact: true }).waitFor();
    await ready();
  };

  test('the checks find what they look for: an unnamed button, grey text on white, a positive tabindex', async () => {
    await page.goto(`${served.base}/console`);
    await page.getByLabel('API token').waitFor();
    // Made through the DOM and CSSOM, which the Content-Security-Policy allows (no inline markup).
    await page.evaluate(() => {
      const faint = document.createElement('p');
      faint.textContent = 'faint text';
      faint.style.color = '#999999';
      const button = document.createElement('button');
      button.tabIndex = 2;
      const box = document.createElement('div');
      box.id = 'planted';
      box.append(faint, button);
      document.body.append(box);
    });
    const findings = await accessibilityFindings(page);
    assert.equal(findings.length, 3, findings.join('\n'));
    assert.match(findings[0]!, /^no accessible name: button: <button tabindex="2"><\/button>/);
    assert.match(findings[1]!, /^contrast 2\.85:1 < 4\.5:1 for "faint text" \(rgb\(153, 153, 153\) on rgb\(255, 255, 255\)\)$/);
    assert.match(findings[2]!, /^positive tabindex: <button tabindex="2">/);
    await page.evaluate(() => document.getElementById('planted')?.remove());
    assert.deepEqual(await accessibilityFindings(page), []);
  });

  test('sign-in: the token field and the button are named, in order, with visible focus', async () => {
    assert.deepEqual(await accessibilityFindings(page), []);
    assert.deepEqual(await namedControls(page), ['textbox "API token"', 'button "Sign in"']);
    await page.locator('body').focus();
    const stops = await tabStops(page, 2);
    assert.deepEqual(
      stops.map((stop) => stop.element),
      ['input "API token"', 'button "Sign in"'],
    );
    assert.ok(
      stops.every((stop) => stop.visible),
      JSON.stringify(stops),
    );
  });

  test('overview: named controls and contrast; Tab goes through the navigation in reading order, each stop showing its focus', async () => {
    await page.getByLabel('API token').fill(adminToken);
    await page.getByLabel('API token').press('Enter');
    await page.getByRole('table', { name: 'Queue items by status' }).getByRole('cell').first().waitFor();
    assert.deepEqual(await accessibilityFindings(page), []);
    // The page's heading has the focus after a page change (tabindex -1: not a Tab stop itself).
    assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1');
    // Tab from there goes on with the page, not back to the navigation.
    const [next] = await tabStops(page, 1);
    assert.deepEqual(next, { element: 'button "Refresh"', inside: true, visible: true });
    // From the top of the document: the navigation in its order, then Sign out, then the page.
    // A click on the bar's title (no control) starts the keyboard's way there, as for a user.
    await page.getByText('Syncline console', { exact: true }).click();
    const fromTop = await tabStops(page, 7);
    assert.deepEqual(
      fromTop.map((stop) => stop.element),
      ['a "Overview"', 'a "Queue"', 'a "Systems"', 'a "Definitions"', 'a "Webhooks"', 'button "Sign out"', 'button "Refresh"'],
    );
    assert.ok(
      fromTop.every((stop) => stop.visible),
      JSON.stringify(fromTop),
    );
  });

  test('queue, a finished item, systems with a read, definitions and webhooks: named controls and contrast on each', async () => {
    const started = await fetch(`${served.base}/api/AddAction`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ProcessId: 'crm-customers-to-erp', StartType: 'manual' }),
    });
    const item = (await started.json()) as { ID: string };
    await open('Queue', () => page.getByRole('table', { name: 'Queue items, newest first' }).waitFor());
    assert.deepEqual(await accessibilityFindings(page), [], 'queue');
    // Through the filters, the list, the pager and the start form: every stop shows its focus.
    const queueStops = (await tabStops(page, 40)).filter((stop) => stop.element !== 'body');
    assert.ok(queueStops.length >= 20, JSON.stringify(queueStops));
    assert.deepEqual(
      queueStops.filter((stop) => !stop.visible),
      [],
    );
    await page.getByRole('link', { name: item.ID.slice(0, 8) }).click();
    await page.getByRole('status').getByText('Complete').waitFor({ timeout: 30_000 });
    assert.deepEqual(await accessibilityFindings(page), [], 'queue item');

    await open('Systems', () => page.getByRole('table', { name: 'Fields of crm Customer' }).waitFor());
    await page.getByRole('form', { name: 'Read crm' }).getByRole('button', { name: 'Read' }).click();
    await page.getByRole('table', { name: 'Records of crm Customer' }).waitFor();
    assert.deepEqual(await accessibilityFindings(page), [], 'systems');

    await open('Definitions', () => page.getByRole('table', { name: 'Loaded definitions by kind' }).waitFor());
    assert.deepEqual(await accessibilityFindings(page), [], 'definitions');

    await open('Webhooks', () => page.getByRole('table', { name: 'Webhooks' }).waitFor());
    assert.deepEqual(await accessibilityFindings(page), [], 'webhooks');
    await page.getByRole('link', { name: webhookId }).click();
    await page.getByRole('form', { name: 'Filter the call log' }).waitFor();
    assert.deepEqual(await accessibilityFindings(page), [], 'webhook');
    const webhookStops = (await tabStops(page, 25)).filter((stop) => stop.element !== 'body');
    assert.ok(
      webhookStops.some((stop) => stop.element === 'input "Pinned only"'),
      JSON.stringify(webhookStops),
    );
    assert.deepEqual(
      webhookStops.filter((stop) => !stop.visible),
      [],
    );
  });

  test('the test dialog: focus moves in, Tab stays inside while it is open, each stop shows its focus, Escape gives focus back', async () => {
    const opener = page.getByRole('button', { name: 'Open the test dialog' });
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Test webhook ${webhookId}` });
    await dialog.waitFor();
    assert.deepEqual(await accessibilityFindings(page, 'dialog[open]'), [], 'the dialog');
    // Around the dialog twice: JSON data, Send test, Close, Send (Stop is disabled until a test runs).
    const stops = await tabStops(page, 8, 'dialog[open]');
    const outside = stops.filter((stop) => !stop.inside);
    assert.deepEqual(outside, [], 'no stop outside the dialog');
    assert.ok(
      stops.every((stop) => stop.visible),
      JSON.stringify(stops),
    );
    assert.deepEqual(
      stops.slice(0, 4).map((stop) => stop.element),
      stops.slice(4).map((stop) => stop.element),
      'the same stops each time round',
    );
    // And backwards from the first control (Close, in the dialog's title) to the last.
    await dialog.getByRole('button', { name: 'Close' }).focus();
    await page.keyboard.press('Shift+Tab');
    assert.equal(await dialog.getByRole('button', { name: 'Send test' }).evaluate((button) => button === document.activeElement), true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await opener.evaluate((button) => button === document.activeElement), true);
    assert.deepEqual(
      messages.filter((text) => /Content Security Policy|Refused to/i.test(text)),
      [],
    );
  });
});
