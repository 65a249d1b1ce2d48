/**
 * What operators see: /healthz, /readyz (with the outcome of the last reload), /metrics (requests
 * by route pattern and status, a latency histogram, bounded labels whatever the paths) and one
 * pino log line per request that never holds a token, a header, a body or a query string.
 */
import assert from 'node:assert/strict';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { quickstartApp, tokens, type HttpApp } from '../../../support/http-app.js';
import { sample } from '../../../support/prometheus-text.js';

const minRoute = '/api/RunConnectionGetDataMin/:system/:object';

describe('observability', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp({ watch: true });
  });
  after(() => app.close());

  describe('/healthz and /readyz', () => {
    it('answers /healthz without a token', async () => {
      const answer = await app.get('/healthz', null);
      assert.deepEqual([answer.status, answer.type, answer.json], [200, 'application/json', { status: 'ok' }]);
      assert.equal((await app.call('HEAD', '/healthz', { token: null })).status, 200);
    });

    it('answers /readyz with how many definitions are loaded, no ids and no secret', async () => {
      const answer = await app.get('/readyz', null);
      assert.equal(answer.status, 200);
      assert.equal(answer.json.status, 'ready');
      assert.equal(answer.json.snapshot.definitions.System, 2);
      assert.equal(answer.json.snapshot.definitions.Webhook, 1);
      assert.doesNotMatch(
        answer.text,
        /wh_crmCustomerChanged01|quickstart-operator|crm-customers-to-erp/,
        'ids stay behind a token: a webhook id may be its only secret',
      );
      assert.equal(answer.json.lastReload.ok, true);
      for (const token of Object.values(tokens)) assert.ok(!answer.text.includes(token));
      assert.doesNotMatch(answer.text, /sqlite|filename|connection|password/i);
    });

    it('shows a rejected reload in /readyz while the old definitions keep serving', async () => {
      const file = join(app.definitions, 'syncs.yaml');
      const original = await readFile(file, 'utf8');
      const before = (await app.get('/readyz', null)).json;
      await writeFile(`${file}.tmp`, original.replace('object: Account', 'object: Acount'));
      await rename(`${file}.tmp`, file);
      let ready = before;
      const deadline = performance.now() + 5000;
      while (ready.lastReload.ok) {
        assert.ok(performance.now() < deadline, 'the rejected reload shows within 5 s');
        await sleep(20);
        ready = (await app.get('/readyz', null)).json;
      }
      assert.equal(ready.status, 'ready');
      assert.equal(ready.snapshot.digest, before.snapshot.digest);
      assert.match(
        ready.lastReload.problems[0],
        /syncs\.yaml:\d+:\d+: Sync\/crm-customers-to-erp: target\.object: System 'erp' has no object 'Acount'/,
      );
      assert.equal((await app.post('/api/RunConnectionGetDataMin/crm/Customer', [])).status, 200, 'the old snapshot serves');
      await writeFile(`${file}.tmp`, original);
      await rename(`${file}.tmp`, file);
      while (!(await app.get('/readyz', null)).json.lastReload.ok) await sleep(20);
    });
  });

  describe('/metrics', () => {
    it('counts requests by method, route pattern and status, and times them', async () => {
      const metricsBefore = (await app.get('/metrics', null)).text;
      const okBefore = sample(metricsBefore, 'syncline_http_requests_total', { method: 'POST', route: minRoute, status: '200' }) ?? 0;
      for (let i = 0; i < 3; i += 1) assert.equal((await app.post('/api/RunConnectionGetDataMin/crm/Customer', [])).status, 200);
      assert.equal((await app.post('/API/runconnectiongetdatamin/ERP/account', [])).status, 200);
      assert.equal((await app.post('/api/RunConnectionGetDataMin/crm/Customer', [{ name: 'GETDATA_TOP', value: '1' }])).status, 400);
      assert.equal((await app.post('/api/RunConnectionGetDataMin/crm/Customer', [], null)).status, 401);
      assert.equal((await app.get('/api/GetDataObject/crm/Customer/1')).status, 200);
      assert.equal((await app.get('/no/such/route')).status, 404);
      assert.equal((await app.get('/console/assets/no-such-file.js', null)).status, 404);
      assert.equal((await app.get('/api/RunConnectionGetDataMin/crm/Customer')).status, 405);

      const answer = await app.get('/metrics', null);
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = answer.text;
      assert.equal(
        sample(text, 'syncline_http_requests_total', { method: 'POST', route: minRoute, status: '200' }),
        okBefore + 4,
        'the case variant counts under the same pattern',
      );
      assert.equal(sample(text, 'syncline_http_requests_total', { method: 'POST', route: minRoute, status: '400' }), 1);
      assert.equal(sample(text, 'syncline_http_requests_total', { method: 'POST', route: minRoute, status: '401' }), 1);
      assert.equal(
        sample(text, 'syncline_http_requests_total', { method: 'GET', route: '/api/GetDataObject/:system/:object/:key', status: '200' }),
        1,
      );
      assert.ok((sample(text, 'syncline_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) ?? 0) >= 1);
      assert.equal(
        sample(text, 'syncline_http_requests_total', { method: 'GET', route: '/console', status: '404' }),
        1,
        "the console's files count under one label",
      );
      assert.equal(
        sample(text, 'syncline_http_requests_total', { method: 'GET', route: minRoute, status: '405' }),
        1,
        'a wrong method counts under the pattern of the path',
      );

      const count = sample(text, 'syncline_http_request_duration_seconds_count', { method: 'POST', route: minRoute });
      assert.equal(count, okBefore + 6);
      assert.equal(sample(text, 'syncline_http_request_duration_seconds_bucket', { le: '+Inf', method: 'POST', route: minRoute }), count);
      const sum = sample(text, 'syncline_http_request_duration_seconds_sum', { method: 'POST', route: minRoute });
      assert.ok(sum !== undefined && sum > 0 && sum < 60);
      assert.match(text, /^# TYPE syncline_http_request_duration_seconds histogram$/m);
      assert.match(text, /^syncline_process_cpu_user_seconds_total \d/m, 'process metrics are there too');
    });

    it('keeps label values bounded whatever paths callers send', async () => {
      for (let i = 0; i < 40; i += 1) {
        await app.post(`/api/RunConnectionGetDataMin/crm/Object-${i}-secret`, []);
        await app.get(`/api/GetDataObject/crm/Customer/${1000 + i}`);
        await app.get(`/random-${i}/path-secret`);
      }
      const text = (await app.get('/metrics', null)).text;
      assert.doesNotMatch(text, /secret|Object-\d|random-\d|\/crm\/Customer\/10\d\d/);
      const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
      assert.ok(routes.size <= 10, `few route labels: ${[...routes].join(', ')}`);
    });
  });

  describe('request log', () => {
    it('writes one line per request with method, route pattern, status, duration and client', async () => {
      const from = app.logs.length;
      await app.post('/api/RunConnectionGetDataMin/crm/Customer', [], tokens.operator);
      await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'LOG-1', AccountName: 'Log' }, tokens.erpWriter);
      await app.post('/api/RunConnectionGetDataMin/crm/Customer', [], null);
      const lines = app.logs.slice(from).filter((line) => line.msg === 'request');
      assert.equal(lines.length, 3);
      assert.deepEqual(
        lines.map(({ method, route, status, client }) => ({ method, route, status, client })),
        [
          { method: 'POST', route: minRoute, status: 200, client: 'quickstart-operator' },
          { method: 'POST', route: '/api/RunConnectionSetDataMin/:system/:object', status: 201, client: 'test-erp-writer' },
          { method: 'POST', route: minRoute, status: 401, client: undefined },
        ],
      );
      for (const line of lines) {
        assert.equal(line.level, 30);
        assert.equal(typeof line.ms, 'number');
        assert.equal(line.service, 'syncline');
      }
    });

    it('never logs tokens, headers, bodies or query strings', async () => {
      const from = app.logs.length;
      const secret = 'personal-data-7d1f0c-never-logged';
      for (const token of Object.values(tokens)) {
        await app.call('POST', `/api/RunConnectionGetDataMin/crm/Customer?access_token=${token}&password=${secret}`, {
          token,
          body: [{ name: 'GETDATA_WHERE', value: `name = '${secret}'` }],
        });
      }
      await app.call('POST', '/api/RunConnectionGetDataMin/crm/Customer', { token: `${tokens.admin}-wrong`, body: [] });
      await app.call('POST', '/api/RunConnectionGetDataMin/crm/Customer', {
        token: null,
        headers: { authorization: `Basic ${Buffer.from(`admin:${secret}`).toString('base64')}`, cookie: `session=${secret}` },
      });
      await app.post('/api/RunConnectionSetDataMin/erp/Account', {
        AccountNumber: 'LOG-2',
        AccountName: secret,
        Email: `${secret}@example.com`,
      });
      await app.post('/api/RunConnectionSetData/crm/Customer', {
        columns: [
          { name: 'name', value: secret },
          { name: 'addresses[main].street', value: secret },
        ],
      });
      await app.post('/api/RunConnectionSetDataMin/crm/Customer', { name: secret, active: 'not-a-boolean' });
      await app.post('/api/RunConnectionGetQueryData/crm', {
        columns: [{ Name: 'x', ColumnType: 'String' }],
        Statement: `SELECT '${secret}' AS x`,
      });
      await app.post('/api/RunConnectionGetQueryData/crm', {
        columns: [{ Name: 'x', ColumnType: 'String' }],
        Statement: `SELECT ${secret} FROM nowhere`,
      });
      await app.call('POST', '/api/RunConnectionSetDataMin/crm/Customer', {
        raw: `{"name": "${secret}"`,
        headers: { 'content-type': 'application/json' },
      });

      const lines = app.logs.slice(from);
      assert.ok(lines.filter((line) => line.msg === 'request').length >= 14);
      const text = JSON.stringify(lines);
      for (const token of Object.values(tokens)) assert.ok(!text.includes(token), `the log holds a token: ${text.slice(0, 2000)}`);
      assert.ok(!text.includes(Buffer.from(`admin:${secret}`).toString('base64')));
      assert.doesNotMatch(text, /authorization|bearer|cookie|access_token|password/i);
      // Info lines hold no data at all; a debug line may name a refused statement's cause, never a body or token.
      const info = JSON.stringify(lines.filter((line) => line.level >= 30));
      assert.ok(!info.includes(secret), `an info line holds request data: ${info.slice(0, 2000)}`);
    });
  });
});
