/**
 * The console's read routes through HTTP on the quickstart (plus a nightly sync with a cron in a
 * time zone, a flow, and console clients with and without allow-lists): what each answers, who may
 * call them, what a restricted client sees, and a refused reload showing its problem with the file
 * (relative to the definitions directory), line and column.
 */
import assert from 'node:assert/strict';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { upsertDaemon } from '../../../../runtime/cluster/register-daemon.js';
import { enqueueSlot } from '../../../../runtime/queue/schedule-slot.js';
import { quickstartApp, quickstartDir, tokens, type HttpApp } from '../../../support/http-app.js';

const consoleToken = 'console-token-0123456789-abcdefghij-never-logged';
const erpConsoleToken = 'erp-console-token-0123456789-abcdefghij-never-logged';
const syncConsoleToken = 'sync-console-token-0123456789-abcdefghij-never-logged';

const clients = `kind: ApiClient
id: test-console
token: \${env:CONSOLE_TOKEN}
scopes: [console]
---
kind: ApiClient
id: test-erp-console
token: \${env:ERP_CONSOLE_TOKEN}
scopes: [console]
systems: [erp]
syncs: []
---
kind: ApiClient
id: test-sync-console
token: \${env:SYNC_CONSOLE_TOKEN}
scopes: [console]
syncs: [crm-customers-to-erp]
`;

const flow = `kind: Flow
id: nightly-flow
name: Nightly flow
steps:
  - sync: crm-customers-nightly
schedule:
  every: 6h
`;

const fifteenMinutes = 15 * 60_000;

describe('console information routes', () => {
  let app: HttpApp;
  before(async () => {
    // The quickstart's sync again, reading the record store nightly at 02:30 in Berlin, and a flow of it.
    const quickstartSync = await readFile(join(quickstartDir, 'syncs.yaml'), 'utf8');
    const nightly = quickstartSync
      .replace('id: crm-customers-to-erp', 'id: crm-customers-nightly')
      .replace('every: 15m', 'cron: "30 2 * * *"\n  timezone: Europe/Berlin')
      // A flow starts with a record-store read.
      .replace(/source:\n( {2}.*\n)+/, 'source:\n  recordStore: true\n');
    assert.notEqual(nightly, quickstartSync);
    app = await quickstartApp({
      watch: true,
      env: { CONSOLE_TOKEN: consoleToken, ERP_CONSOLE_TOKEN: erpConsoleToken, SYNC_CONSOLE_TOKEN: syncConsoleToken },
      files: { 'console-clients.yaml': clients, 'nightly/nightly.yaml': `${nightly}---\n${flow}` },
    });
  });
  after(() => app.close());

  it('needs a token (401) and the console scope (403) on every route', async () => {
    for (const path of [
      '/api/console/overview',
      '/api/schedules',
      '/api/definitions',
      '/api/webhooks',
      '/api/systems',
      '/api/systems/crm',
    ]) {
      const anonymous = await app.get(path, null);
      assert.equal(anonymous.status, 401, path);
      assert.equal(anonymous.type, 'application/problem+json');
      const operator = await app.get(path, tokens.operator);
      assert.equal(operator.status, 403, path);
      assert.match(operator.json.detail, /scope console/);
      assert.equal((await app.get(path, consoleToken)).status, 200, path);
    }
  });

  it('lists the schedules with the next slot the scheduler computes and the last enqueued run', async () => {
    const before = Date.now();
    const answer = await app.get('/api/schedules', consoleToken);
    const afterCall = Date.now();
    assert.equal(answer.status, 200, answer.text);
    const byId = new Map((answer.json.schedules as any[]).map((s) => [s.id, s]));
    assert.deepEqual([...byId.keys()].sort(), ['crm-customers-nightly', 'crm-customers-to-erp', 'nightly-flow']);

    const quarterHourly = byId.get('crm-customers-to-erp');
    assert.equal(quarterHourly.kind, 'Sync');
    assert.equal(quarterHourly.every, '15m');
    assert.equal(quarterHourly.startType, 'repeat');
    assert.equal(quarterHourly.cron, undefined);
    // Slots are multiples of 15 minutes since the epoch: the next after the call's time.
    const next = Date.parse(quarterHourly.nextRun);
    assert.ok(
      [before, afterCall].some((t) => next === (Math.floor(t / fifteenMinutes) + 1) * fifteenMinutes),
      quarterHourly.nextRun,
    );
    assert.ok(quarterHourly.nextRun.endsWith('Z'));
    // No daemon runs, so no scheduler does: nothing will come.
    assert.equal(quarterHourly.active, false);
    assert.equal(quarterHourly.lastRun, null);

    const nightly = byId.get('crm-customers-nightly');
    assert.equal(nightly.cron, '30 2 * * *');
    assert.equal(nightly.timezone, 'Europe/Berlin');
    assert.equal(nightly.startType, 'planned');
    const nightlyNext = new Date(nightly.nextRun);
    const berlin = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    assert.equal(berlin.format(nightlyNext), '02:30', nightly.nextRun);
    assert.ok(nightlyNext.getTime() > before && nightlyNext.getTime() <= afterCall + 25 * 3_600_000, nightly.nextRun);

    assert.equal(byId.get('nightly-flow').kind, 'Flow');
    assert.equal(byId.get('nightly-flow').every, '6h');
  });

  it('shows the last run the scheduler enqueued, and active once a daemon is alive', async () => {
    const slotAt = new Date(Math.floor(Date.now() / fifteenMinutes) * fifteenMinutes);
    const { item } = await enqueueSlot(app.db, { processId: 'crm-customers-to-erp', startType: 'repeat', slotAt });
    const now = new Date();
    await upsertDaemon(
      app.db,
      { id: 'console-test-daemon', host: 'test-host', pid: 4242, version: '0.0.0-test', command: 'daemon', concurrency: 2, startedAt: now },
      { running: 0, now, expiresAt: new Date(now.getTime() + 60_000) },
    );
    const answer = await app.get('/api/schedules', consoleToken);
    const schedule = (answer.json.schedules as any[]).find((s) => s.id === 'crm-customers-to-erp');
    assert.deepEqual(schedule.lastRun, { slotAt: slotAt.toISOString(), itemId: item.id, status: 'Pending' });
    assert.equal(schedule.active, true);

    const overview = await app.get('/api/console/overview', consoleToken);
    assert.equal(overview.status, 200, overview.text);
    assert.equal(overview.json.version, '0.0.0-test');
    assert.equal(overview.json.role, 'api');
    assert.equal(overview.json.queue.Pending, 1);
    assert.deepEqual(Object.keys(overview.json.queue).sort(), ['Complete', 'Failed', 'InProgress', 'Pending']);
    assert.equal(overview.json.daemons.count, 1);
    assert.equal(overview.json.daemons.daemons[0].id, 'console-test-daemon');
    assert.equal(overview.json.daemons.daemons[0].host, 'test-host');
    assert.equal(overview.json.schedules.length, 3);
    assert.equal(overview.json.lastReload.ok, true);
    assert.deepEqual(overview.json.lastReload.problems, []);

    // A client whose allow-list leaves the sync out counts none of its items.
    const restricted = await app.get('/api/console/overview', erpConsoleToken);
    assert.equal(restricted.json.queue.Pending, 0);
    assert.deepEqual(restricted.json.schedules, []);
  });

  it('lists what is loaded by kind, with files relative to the definitions directory and no content', async () => {
    const answer = await app.get('/api/definitions', consoleToken);
    assert.equal(answer.status, 200, answer.text);
    const { definitions } = answer.json;
    assert.deepEqual(
      definitions.System.map((d: any) => d.id),
      ['crm', 'erp'],
    );
    const sync = definitions.Sync.find((d: any) => d.id === 'crm-customers-to-erp');
    assert.deepEqual(sync, { id: 'crm-customers-to-erp', name: 'CRM customers → ERP accounts', file: 'syncs.yaml', line: 7, column: 1 });
    assert.equal(definitions.Sync.find((d: any) => d.id === 'crm-customers-nightly').file, 'nightly/nightly.yaml');
    assert.deepEqual(
      definitions.Flow.map((d: any) => [d.id, d.file]),
      [['nightly-flow', 'nightly/nightly.yaml']],
    );
    assert.deepEqual(
      definitions.Webhook.map((d: any) => d.id),
      ['wh_crmCustomerChanged01'],
    );
    assert.ok(definitions.ApiClient.some((d: any) => d.id === 'test-console'));
    assert.equal(answer.json.digest, app.holder.current.digest);
    // Identity only: no connection settings, no tokens, no server paths.
    assert.doesNotMatch(answer.text, /sqlite|filename|token-0123|tokenSha256/i);
    assert.ok(!answer.text.includes(app.definitions), 'no absolute path of the server');
  });

  it('lists the webhooks: URL, action, what they touch, and only whether they have a secret', async () => {
    const answer = await app.get('/api/webhooks', consoleToken);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.webhooks, [
      {
        id: 'wh_crmCustomerChanged01',
        name: 'CRM customer changed',
        url: '/api/webhooks/wh_crmCustomerChanged01',
        action: 'startSync',
        sync: 'crm-customers-to-erp',
        active: true,
        hasSecret: true,
        signature: null,
        pinnedEntries: 0,
        file: 'webhooks.yaml',
        line: 5,
      },
    ]);
    assert.ok(!answer.text.includes('quickstart-webhook-secret'));
  });

  it("lists the systems with their objects and queries, and describes a system's objects before any read", async () => {
    const list = await app.get('/api/systems', consoleToken);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.json.systems.map((s: any) => [s.id, s.connector, s.readOnly, s.objects, s.queries, s.file, s.line]),
      [
        ['crm', 'sql', false, ['Customer'], ['activeCustomersByCity'], 'systems.yaml', 6],
        ['erp', 'sql', false, ['Account'], [], 'systems.yaml', 51],
      ],
    );
    assert.equal(list.json.systems[0].name, 'CRM (customers and their addresses)');
    assert.deepEqual(list.json.systems[0].capabilities, app.holder.current.systems.get('crm')!.capabilities);
    assert.equal(list.json.systems[0].capabilities.typedGroups, true);

    const crm = await app.get('/api/systems/CRM', consoleToken);
    assert.equal(crm.status, 200, crm.text);
    assert.equal(crm.json.id, 'crm', 'the id in any case');
    const [customer] = crm.json.objects;
    assert.equal(customer.name, 'Customer');
    assert.deepEqual(customer.key, ['id']);
    assert.equal(customer.readOnly, false);
    assert.deepEqual(customer.fields[0], { name: 'id', type: 'Integer', required: false, readOnly: true });
    assert.deepEqual(
      customer.groups.map((g: any) => [g.name, g.types, g.fields.map((f: any) => f.name)]),
      [['addresses', ['main', 'invoice'], ['street', 'city', 'zip', 'country']]],
    );
    // The description RunConnectionGetData answers with its records.
    const read = await app.post('/api/RunConnectionGetData/crm/Customer', [{ name: 'GETDATA_LIMIT', value: '1' }]);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      { key: customer.key, fields: customer.fields, groups: customer.groups },
      { key: read.json.key, fields: read.json.fields, groups: read.json.groups },
    );
    assert.deepEqual(crm.json.queries, [
      {
        name: 'activeCustomersByCity',
        description: "Active customers with their main address; #FlowFilter# takes the caller's filter.",
        columns: [
          { name: 'id', type: 'Integer' },
          { name: 'name', type: 'String' },
          { name: 'email', type: 'String' },
          { name: 'city', type: 'String' },
        ],
      },
    ]);
    // The shape of the data only: no connection settings, no statements.
    for (const answer of [list, crm]) assert.doesNotMatch(answer.text, /sqlite|filename|connection|SELECT|statement/i);

    const unknown = await app.get('/api/systems/nosuch', consoleToken);
    assert.equal(unknown.status, 404, unknown.text);
    assert.match(unknown.json.detail, /Systems: crm, erp/);
  });

  it('shows a client with allow-lists only what it may use', async () => {
    const erp = await app.get('/api/definitions', erpConsoleToken);
    assert.equal(erp.status, 200, erp.text);
    assert.deepEqual(erp.json.definitions, { System: [erp.json.definitions.System[0]], Sync: [], Flow: [], Webhook: [], ApiClient: [] });
    assert.equal(erp.json.definitions.System[0].id, 'erp');
    assert.deepEqual((await app.get('/api/webhooks', erpConsoleToken)).json.webhooks, []);
    assert.deepEqual((await app.get('/api/schedules', erpConsoleToken)).json.schedules, []);
    assert.deepEqual(
      (await app.get('/api/systems', erpConsoleToken)).json.systems.map((s: any) => s.id),
      ['erp'],
    );
    assert.equal((await app.get('/api/systems/erp', erpConsoleToken)).status, 200);
    // Off the list, existing or not: refused by name, as the connection routes refuse it.
    for (const id of ['crm', 'nosuch']) {
      const refused = await app.get(`/api/systems/${id}`, erpConsoleToken);
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.json.detail, new RegExp(id));
    }

    const syncOnly = await app.get('/api/definitions', syncConsoleToken);
    assert.deepEqual(
      syncOnly.json.definitions.Sync.map((d: any) => d.id),
      ['crm-customers-to-erp'],
    );
    // The flow runs a sync that is not on the list.
    assert.deepEqual(syncOnly.json.definitions.Flow, []);
    assert.deepEqual(
      syncOnly.json.definitions.System.map((d: any) => d.id),
      ['crm', 'erp'],
    );
    assert.deepEqual(
      (await app.get('/api/webhooks', syncConsoleToken)).json.webhooks.map((w: any) => w.id),
      ['wh_crmCustomerChanged01'],
    );
    assert.deepEqual(
      (await app.get('/api/schedules', syncConsoleToken)).json.schedules.map((s: any) => s.id),
      ['crm-customers-to-erp'],
    );
  });

  it('shows a refused reload with the problem at file:line:column, while the old definitions keep serving', async () => {
    const digest = app.holder.current.digest;
    const broken = [
      'kind: Sync',
      'id: broken-sync',
      'source:',
      '  system: crm',
      '  object: Customer',
      'target:',
      '  system: nosuch',
      '  object: Account',
      'mapping: "{}"',
      '',
    ].join('\n');
    await writeFile(join(app.definitions, 'broken.yaml.tmp'), broken);
    await rename(join(app.definitions, 'broken.yaml.tmp'), join(app.definitions, 'broken.yaml'));
    const deadline = performance.now() + 5000;
    while (app.holder.status.ok) {
      assert.ok(performance.now() < deadline, 'the broken edit was noticed');
      await sleep(20);
    }
    const answer = await app.get('/api/definitions', consoleToken);
    assert.equal(answer.json.digest, digest);
    const { lastReload } = answer.json;
    assert.equal(lastReload.ok, false);
    const problem = lastReload.problems.find((p: any) => p.id === 'broken-sync');
    assert.ok(problem, JSON.stringify(lastReload.problems));
    assert.equal(problem.file, 'broken.yaml');
    assert.equal(problem.kind, 'Sync');
    assert.equal(problem.severity, 'error');
    assert.deepEqual([problem.line, problem.column], [7, 11], JSON.stringify(problem));
    assert.match(problem.message, /nosuch/);
    assert.ok(!answer.text.includes(app.definitions), 'no absolute path of the server');

    const overview = await app.get('/api/console/overview', consoleToken);
    assert.deepEqual(overview.json.lastReload, lastReload);

    // The problem belongs to a sync off the restricted client's list: counted, not shown.
    const restricted = await app.get('/api/definitions', syncConsoleToken);
    assert.equal(restricted.json.lastReload.ok, false);
    assert.equal(
      restricted.json.lastReload.problems.some((p: any) => p.id === 'broken-sync'),
      false,
    );
    assert.ok(restricted.json.lastReload.hiddenProblems >= 1);
  });
});
