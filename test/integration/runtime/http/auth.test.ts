/**
 * Bearer tokens, scopes and allow-lists on the /api routes: ApiClient tokens (plain from the
 * environment, or as tokenSha256), the admin token, 401 before anything else, 403 for a missing
 * scope or a system outside the allow-list, and the admin token of `syncline serve` (from
 * SYNCLINE_ADMIN_TOKEN, or generated and printed once).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { copyFile, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, describe, it, mock } from 'node:test';
import { findPrincipal, sha256 } from '../../../../runtime/http/auth.js';
import { quickstartApp, quickstartDir, tokens, type Answer, type HttpApp } from '../../../support/http-app.js';

const read = [{ name: 'GETDATA_LIMIT', value: '1' }];
const query = { columns: [{ Name: 'n', ColumnType: 'Integer' }], Statement: 'SELECT COUNT(*) AS n FROM customers' };

/** One call of each route that needs a token. */
const routes: Array<{ method: 'GET' | 'POST'; path: string; body?: unknown }> = [
  { method: 'POST', path: '/api/RunConnectionGetData/crm/Customer', body: read },
  { method: 'POST', path: '/api/RunConnectionGetDataMin/crm/Customer', body: read },
  { method: 'GET', path: '/api/GetDataObject/crm/Customer/1' },
  { method: 'POST', path: '/api/RunConnectionGetQueryData/crm', body: query },
  {
    method: 'POST',
    path: '/api/RunConnectionSetData/erp/Account',
    body: {
      columns: [
        { name: 'AccountNumber', value: 'A-1' },
        { name: 'AccountName', value: 'A' },
      ],
    },
  },
  { method: 'POST', path: '/api/RunConnectionSetDataMin/erp/Account', body: { AccountNumber: 'A-1', AccountName: 'A' } },
  { method: 'GET', path: '/api/openapi.json' },
];

function assertProblem(answer: Answer, status: number, code: string, detail?: RegExp): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.type, 'application/problem+json');
  assert.equal(answer.json.type, `urn:syncline:problem:${code}`, answer.text);
  if (detail) assert.match(answer.json.detail, detail);
}

describe('authentication and authorization', () => {
  let app: HttpApp;
  before(async () => {
    app = await quickstartApp({ watch: true });
  });
  after(() => app.close());

  it('answers 401 with WWW-Authenticate on every route without a token, in any spelling of the path', async () => {
    for (const route of routes) {
      for (const path of [route.path, route.path.toUpperCase(), route.path.replace('/api/', '/Api/').toLowerCase()]) {
        const answer = await app.call(route.method, path, { token: null, ...(route.body === undefined ? {} : { body: route.body }) });
        assertProblem(answer, 401, 'unauthenticated', /Send Authorization: Bearer <token>/);
        assert.equal(answer.headers.get('www-authenticate'), 'Bearer realm="syncline"', path);
      }
    }
  });

  it('answers 401 for a wrong, partial, extended or differently cased token and for other schemes', async () => {
    const valid = tokens.operator;
    const headers = [
      `Bearer wrong-${valid}`,
      `Bearer ${valid.slice(0, -1)}`,
      `Bearer ${valid}x`,
      `Bearer ${valid.toUpperCase()}`,
      `Bearer ${valid} ${valid}`,
      'Bearer',
      'Bearer ',
    ];
    const otherSchemes = [`Basic ${Buffer.from(`user:${valid}`).toString('base64')}`, valid, `Token ${valid}`];
    for (const authorization of [...headers, ...otherSchemes]) {
      const answer = await app.call('POST', '/api/RunConnectionGetDataMin/crm/Customer', {
        token: null,
        headers: { authorization },
        body: read,
      });
      const said = otherSchemes.includes(authorization)
        ? /The Authorization header is not of the form Bearer <token> .*send Authorization: Bearer <token>/
        : /The bearer token is not valid/;
      assertProblem(answer, 401, 'unauthenticated', said);
      assert.ok(!answer.text.includes(valid.slice(4, 16)), 'no part of the token is echoed');
    }
  });

  it('checks the token before the route, the system and the body', async () => {
    assertProblem(
      await app.call('POST', '/api/RunConnectionGetDataMin/nosuchsystem/Customer', { token: 'nope-nope-nope-nope', body: read }),
      401,
      'unauthenticated',
    );
    assertProblem(
      await app.call('POST', '/api/RunConnectionSetDataMin/erp/Account', { token: null, raw: '{broken' }),
      401,
      'unauthenticated',
    );
    assertProblem(
      await app.call('POST', '/api/RunConnectionSetDataMin/erp/Account', {
        token: null,
        raw: 'x'.repeat(2 * 1024 * 1024),
        headers: { 'content-type': 'application/json' },
      }),
      401,
      'unauthenticated',
    );
  });

  it('lets the admin token do everything, with the scheme in any case', async () => {
    for (const route of routes) {
      const answer = await app.call(route.method, route.path, {
        token: null,
        headers: { authorization: `bEaReR ${tokens.admin}` },
        ...(route.body === undefined ? {} : { body: route.body }),
      });
      assert.ok(answer.status === 200 || answer.status === 201, `${route.path}: ${answer.text}`);
    }
  });

  it('lets the quickstart client read, write and query its systems', async () => {
    assert.equal((await app.post('/api/RunConnectionGetDataMin/crm/Customer', read, tokens.operator)).status, 200);
    assert.equal((await app.post('/api/RunConnectionGetQueryData/crm', query, tokens.operator)).status, 200);
    assert.equal(
      (await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'OP-1', AccountName: 'Op' }, tokens.operator)).status,
      201,
    );
    assert.equal((await app.get('/api/openapi.json', tokens.operator)).status, 200);
  });

  it('answers 403 naming the scope a client lacks', async () => {
    assert.equal((await app.post('/api/RunConnectionGetData/crm/Customer', read, tokens.reader)).status, 200);
    assert.equal((await app.get('/api/GetDataObject/crm/Customer/1', tokens.reader)).status, 200);
    assertProblem(
      await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'R-1', AccountName: 'R' }, tokens.reader),
      403,
      'missing-scope',
      /needs the scope systems:write; client test-reader has systems:read/,
    );
    assertProblem(
      await app.post('/api/RunConnectionSetData/erp/Account', { columns: [{ name: 'AccountName', value: 'R' }] }, tokens.reader),
      403,
      'missing-scope',
      /systems:write/,
    );
    assertProblem(await app.post('/api/RunConnectionGetQueryData/crm', query, tokens.reader), 403, 'missing-scope', /systems:query/);
    assertProblem(
      await app.post('/api/RunConnectionGetDataMin/crm/Customer', read, tokens.queueOnly),
      403,
      'missing-scope',
      /systems:read; client test-queue-only has queue:read/,
    );
    assert.equal(await app.erp('accounts').where({ AccountNumber: 'R-1' }).first(), undefined, 'nothing was written');
  });

  it('checks the scope before reading the body', async () => {
    assertProblem(
      await app.call('POST', '/api/RunConnectionSetDataMin/erp/Account', { token: tokens.reader, raw: '{broken' }),
      403,
      'missing-scope',
    );
  });

  it('accepts a client defined by tokenSha256, with its own scopes', async () => {
    assert.equal((await app.post('/api/RunConnectionGetDataMin/crm/Customer', read, tokens.hashed)).status, 200);
    assert.equal(
      (
        await app.post(
          '/api/RunConnectionGetQueryData/erp',
          { columns: [{ Name: 'n', ColumnType: 'Integer' }], Statement: 'SELECT COUNT(*) AS n FROM accounts' },
          tokens.hashed,
        )
      ).status,
      200,
    );
    assertProblem(
      await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'H-1', AccountName: 'H' }, tokens.hashed),
      403,
      'missing-scope',
    );
    const sha = createHash('sha256').update(tokens.hashed).digest('hex');
    assertProblem(await app.post('/api/RunConnectionGetDataMin/crm/Customer', read, sha), 401, 'unauthenticated', /not valid/);
  });

  it('answers 403 for a system outside the allow-list, whether or not it exists', async () => {
    assert.equal((await app.post('/api/RunConnectionGetDataMin/erp/Account', read, tokens.erpWriter)).status, 200);
    assert.equal(
      (await app.post('/api/RunConnectionSetDataMin/erp/Account', { AccountNumber: 'E-1', AccountName: 'E' }, tokens.erpWriter)).status,
      201,
    );
    for (const answer of [
      await app.post('/api/RunConnectionGetDataMin/crm/Customer', read, tokens.erpWriter),
      await app.post('/api/RunConnectionGetDataMin/CRM/Customer', read, tokens.erpWriter),
      await app.get('/api/GetDataObject/crm/Customer/1', tokens.erpWriter),
      await app.post('/api/RunConnectionSetDataMin/crm/Customer', { name: 'Intruder' }, tokens.erpWriter),
    ]) {
      assertProblem(answer, 403, 'not-allowed', /Client test-erp-writer may not access system crm/);
    }
    const unknown = await app.post('/api/RunConnectionGetDataMin/shop/Order', read, tokens.erpWriter);
    assertProblem(unknown, 403, 'not-allowed', /may not access system shop/);
    assert.equal((await app.crm('customers').where({ name: 'Intruder' })).length, 0);
  });

  it('compares a token with the admin token and every client, whichever matches', () => {
    const snapshot = app.holder.current;
    const compare = mock.method(crypto, 'timingSafeEqual');
    syncBuiltinESMExports();
    try {
      const every = 1 + snapshot.apiClients.size;
      for (const [token, id] of [
        [tokens.admin, 'admin'],
        [tokens.operator, 'quickstart-operator'],
        [tokens.hashed, 'test-hashed'],
        ['no-such-token-of-some-length', undefined],
      ] as const) {
        compare.mock.resetCalls();
        assert.equal(findPrincipal(snapshot, sha256(tokens.admin), `Bearer ${token}`)?.id, id);
        assert.equal(compare.mock.callCount(), every, `${id ?? 'no match'}: no early exit`);
        for (const call of compare.mock.calls) assert.equal((call.arguments[0] as Buffer).length, 32, 'digests, never the token itself');
      }
    } finally {
      compare.mock.restore();
      syncBuiltinESMExports();
    }
  });

  it('follows a reload: a removed client is refused, changed scopes apply', async () => {
    const file = join(app.definitions, 'test-clients.yaml');
    const original = await readFile(file, 'utf8');
    const edited = original
      .replace(/kind: ApiClient\nid: test-reader\n[^-]*---\n/, '')
      .replace(
        'id: test-queue-only\ntoken: ${env:QUEUE_ONLY_TOKEN}\nscopes: [queue:read]',
        'id: test-queue-only\ntoken: ${env:QUEUE_ONLY_TOKEN}\nscopes: [queue:read, systems:read]',
      );
    assert.notEqual(edited, original);
    await writeFile(`${file}.tmp`, edited);
    await rename(`${file}.tmp`, file);
    const deadline = performance.now() + 5000;
    while ((await app.post('/api/RunConnectionGetDataMin/crm/Customer', read, tokens.reader)).status !== 401) {
      assert.ok(performance.now() < deadline, 'the reload took effect within 5 s');
      await sleep(20);
    }
    assert.equal((await app.post('/api/RunConnectionGetDataMin/crm/Customer', read, tokens.queueOnly)).status, 200);
  });
});

describe('the admin token of syncline serve', { concurrency: true }, () => {
  const root = resolve(import.meta.dirname, '../../../..');
  let definitions: string;
  before(async () => {
    definitions = await mkdtemp(join(tmpdir(), 'syncline-auth-'));
    for (const name of await readdir(quickstartDir))
      if (name.endsWith('.yaml')) await copyFile(join(quickstartDir, name), join(definitions, name));
  });
  after(() => rm(definitions, { recursive: true, force: true }));

  /** Starts `serve` on a free port, calls `use` with its base URL and output, then stops it. */
  async function serve(
    env: Record<string, string>,
    use: (base: string, output: { stdout: string; stderr: string }) => Promise<void>,
  ): Promise<{ stdout: string; stderr: string }> {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SYNCLINE_')));
    const child = spawn(process.execPath, [join(root, 'bin', 'syncline-dev.js'), 'serve', '--definitions', definitions, '--port', '0'], {
      cwd: root,
      env: { ...inherited, SYNCLINE_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { stdout: '', stderr: '' };
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
    const exited = once(child, 'exit');
    try {
      const base = await new Promise<string>((resolveBase, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          output.stdout += `${line}\n`;
          const match = /"msg":"serving on (http:\/\/[^"]+)"/.exec(line);
          if (match) resolveBase(match[1]!);
        });
        void exited.then(() => reject(new Error(`serve exited before listening: ${output.stderr}`)));
        setTimeout(() => reject(new Error(`serve did not listen within 60 s: ${output.stderr}`)), 60_000).unref();
      });
      await use(base, output);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    return output;
  }

  const status = async (base: string, token: string) =>
    (await fetch(`${base}/api/openapi.json`, { headers: { authorization: `Bearer ${token}` } })).status;

  it('generates a random admin token, prints it once on standard error and never logs it', async () => {
    const run = async (): Promise<string> => {
      let token = '';
      const output = await serve({}, async (base, { stderr }) => {
        const lines = stderr.split('\n').filter((line) => line.includes('admin token'));
        assert.equal(lines.length, 1, stderr);
        token = /: (\S+)$/.exec(lines[0]!)![1]!;
        assert.ok(token.length >= 32, 'long enough to be unguessable');
        assert.equal(await status(base, token), 200);
        assert.equal(await status(base, `${token}x`), 401);
      });
      assert.ok(!output.stdout.includes(token), 'the log does not hold the token');
      assert.equal(output.stderr.split(token).length, 2, 'printed exactly once');
      return token;
    };
    const tokensSeen = await Promise.all([run(), run()]);
    assert.notEqual(tokensSeen[0], tokensSeen[1], 'each run has its own token');
  });

  it('uses SYNCLINE_ADMIN_TOKEN when set and prints no token', async () => {
    const configured = 'configured-admin-token-for-this-test-only';
    const output = await serve({ SYNCLINE_ADMIN_TOKEN: configured }, async (base) => {
      assert.equal(await status(base, configured), 200);
      assert.equal(await status(base, 'some-other-token-of-enough-length'), 401);
    });
    assert.doesNotMatch(output.stderr, /admin token/);
    assert.ok(!output.stdout.includes(configured) && !output.stderr.includes(configured));
  });
});
