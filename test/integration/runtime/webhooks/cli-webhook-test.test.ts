/**
 * `syncline webhook test` as a real process against a served app (the quickstart with the
 * in-process webhook runner): sent data, the ticker and the received status and body on standard
 * output; exit 0 for 2xx, 1 for another answer or a refused test, 2 for usage errors.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../../support/cli-process.js';
import { quickstartApp, tokens, type HttpApp } from '../../../support/http-app.js';
import { logWebhookFiles, quickstartSecret, record, webhooks } from './log-fixture.js';
import { standInEndpoint } from './stand-in-endpoint.js';

const syncline = (args: string[], env: Record<string, string> = {}) => runCli(args, { env });

/** A port nothing listens on (fetch refuses the well-known "bad" ports such as 1). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('syncline webhook test', () => {
  let app: HttpApp;
  let dir: string;
  let dataFile: string;
  before(async () => {
    app = await quickstartApp({ files: logWebhookFiles, runWebhook: standInEndpoint });
    dir = await mkdtemp(join(tmpdir(), 'syncline-webhook-test-'));
    dataFile = join(dir, 'data.json');
    await writeFile(dataFile, JSON.stringify({ id: 4, event: 'customer.updated' }));
  });
  after(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints sent data, the ticker and the received status and body; exit 0 for 2xx', async () => {
    const result = await syncline(['webhook', 'test', webhooks.quickstart, '--data', dataFile, '--url', app.base], {
      SYNCLINE_ADMIN_TOKEN: tokens.admin,
    });
    assert.equal(result.code, 0, result.stderr);
    const out = result.stdout;
    assert.match(out, new RegExp(`^sent: POST ${app.base}/api/webhooks/${webhooks.quickstart}\n`));
    assert.match(out, /"event": "customer.updated"/);
    const order = [
      'sent:',
      'ticker:',
      ' start ',
      ' filter ',
      ' queued ',
      ' done ',
      'received: 200 (application/json; charset=utf-8)',
      '"received": {',
      'log entry: ',
    ].map((text) => out.indexOf(text));
    assert.ok(
      order.every((position, i) => position >= 0 && (i === 0 || position > order[i - 1]!)),
      out,
    );
    assert.ok(!out.includes(quickstartSecret));
    const entryId = /log entry: (\S+)/.exec(out)![1]!;
    assert.equal((await app.get(`/api/console/webhooks/${webhooks.quickstart}/log/${entryId}`)).json.origin, 'test');
  });

  it('sends a pinned entry with --pin, taking the URL and token from the environment', async () => {
    const id = await record(app, webhooks.quickstart);
    await app.post(`/api/console/webhooks/${webhooks.quickstart}/log/${id}/pin`);
    const result = await syncline(['webhook', 'test', webhooks.quickstart, '--pin', id], {
      SYNCLINE_URL: app.base,
      SYNCLINE_TOKEN: tokens.admin,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`\\(pinned entry ${id}\\)`));
  });

  it('exits 1 when the webhook answers otherwise or the server refuses the test', async () => {
    const inactive = await syncline(['webhook', 'test', webhooks.inactive, '--data', dataFile, '--url', app.base, '--token', tokens.admin]);
    assert.equal(inactive.code, 1);
    assert.match(inactive.stdout, /received: 410/);
    const scope = await syncline(['webhook', 'test', webhooks.quickstart, '--data', dataFile, '--url', app.base, '--token', tokens.reader]);
    assert.equal(scope.code, 1);
    assert.match(scope.stderr, /refused the test \(403\): This call needs the scope console/);
    const unknown = await syncline(['webhook', 'test', 'wh_nope', '--data', dataFile, '--url', app.base, '--token', tokens.admin]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /\(404\)/);
    const unpinned = await syncline([
      'webhook',
      'test',
      webhooks.quickstart,
      '--pin',
      await record(app, webhooks.quickstart),
      '--url',
      app.base,
      '--token',
      tokens.admin,
    ]);
    assert.equal(unpinned.code, 1);
    assert.match(unpinned.stderr, /\(409\).*not pinned/);
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const down = await syncline(['webhook', 'test', webhooks.quickstart, '--data', dataFile, '--url', closed, '--token', tokens.admin]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach http:\/\/127.0.0.1:\d+: ECONNREFUSED/);
  });

  it('exits 2 for usage errors', async () => {
    const notJson = join(dir, 'broken.json');
    await writeFile(notJson, '{');
    const cases: Array<[string[], RegExp]> = [
      [['webhook', 'test', webhooks.quickstart, '--url', app.base, '--token', 't'], /either --data FILE or --pin LOG_ID/],
      [['webhook', 'test', webhooks.quickstart, '--data', dataFile, '--pin', 'x', '--url', app.base, '--token', 't'], /either --data/],
      [['webhook', 'test', webhooks.quickstart, '--data', dataFile, '--url', app.base], /no token/],
      [['webhook', 'test', webhooks.quickstart, '--data', join(dir, 'missing.json'), '--token', 't'], /cannot read/],
      [['webhook', 'test', webhooks.quickstart, '--data', notJson, '--token', 't'], /is not JSON/],
      [['webhook', 'test'], /missing required argument/],
    ];
    for (const [args, message] of cases) {
      const result = await syncline(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
  });
});
