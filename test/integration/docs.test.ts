/**
 * The examples of the reference pages under docs/, replayed as written: the YAML examples are one
 * consistent set on top of the quickstart and validate together, and the curl walkthroughs answer
 * against a fresh quickstart what the pages show. So the documentation cannot drift from the
 * language or the API.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConnectorSpecs } from '../../connectors/index.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { formatProblem } from '../../definitions/problem.js';
import { findTestFiles } from '../../definitions/load/find-files.js';
import { caseRunners } from '../../runtime/testing/case-runners.js';
import { loadTestFiles } from '../../runtime/testing/load-test-files.js';
import { runSuites } from '../../runtime/testing/run-tests.js';
import {
  curlLines,
  docsDefinitionFiles,
  page,
  repoRoot,
  shellBlocks,
  shellSteps,
  withCaptured,
  type CurlCall,
} from '../support/doc-examples.js';
import type { HttpApp } from '../support/http-app.js';
import { runCli } from '../support/cli-process.js';
import { createSqliteFromScript } from '../../examples/quickstart/sql-script.js';

/** The registered connectors, which the definitions are checked against. */
const connectors = await loadConnectorSpecs();

test('every YAML example of docs/ validates together with the quickstart', async () => {
  const { files, env, mount } = docsDefinitionFiles();
  assert.ok(Object.keys(files).length >= 10, `expected docs/ to show at least 10 YAML examples, found ${Object.keys(files).length}`);
  const dir = mkdtempSync(join(tmpdir(), 'syncline-docs-'));
  try {
    cpSync(join(repoRoot, 'examples/quickstart'), dir, { recursive: true, filter: (path) => !path.endsWith('.sqlite') });
    for (const [name, block] of Object.entries(files)) writeFileSync(join(dir, name), block);
    const result = await loadDefinitions([dir], { connectors, env });
    assert.deepEqual(result.problems.map(formatProblem), []);
    assert.ok(result.ok);
    assert.ok(result.snapshot.flows.has('order-intake'));
    assert.ok(result.snapshot.webhooks.has('wh_openOrdersPaged0001'));
    assert.ok(result.snapshot.webhooks.has('wh_contactFormToCrm01'));
    assert.ok(result.snapshot.apiClients.has('erp-integration'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(mount, { recursive: true, force: true });
  }
});

/**
 * The test files of docs/testing.md against the quickstart and the other examples: every case is
 * well formed and names what exists, and the cases of each kind this build runs pass as the page
 * says they do.
 */
test('every test file example of docs/ loads, and its cases pass', async () => {
  const { files, env, mount } = docsDefinitionFiles();
  const dir = mkdtempSync(join(tmpdir(), 'syncline-docs-tests-'));
  try {
    cpSync(join(repoRoot, 'examples/quickstart'), dir, { recursive: true, filter: (path) => !path.endsWith('.sqlite') });
    for (const [name, block] of Object.entries(files)) writeFileSync(join(dir, name), block);
    const loaded = await loadDefinitions([dir], { connectors, env });
    assert.ok(loaded.ok, loaded.ok ? '' : loaded.problems.map(formatProblem).join('\n'));
    const testFiles = (await findTestFiles([dir])).filter((file) => file.displayPath.includes('docs-'));
    const kinds = ['mapping', 'filter', 'condition', 'webhook', 'sync'];
    const tests = await loadTestFiles(testFiles, loaded.snapshot);
    assert.deepEqual(tests.problems.map(formatProblem), []);
    const cases = tests.suites.flatMap((suite) => suite.cases);
    assert.deepEqual([...new Set(cases.map((testCase) => testCase.kind))].sort(), [...kinds].sort(), 'docs/testing.md shows every kind');
    const runnable = tests.suites.map((suite) => ({ ...suite, cases: suite.cases.filter((testCase) => caseRunners[testCase.kind]) }));
    for (const { results } of await runSuites(runnable, loaded.snapshot, { runners: caseRunners })) {
      for (const { testCase, outcome } of results) assert.deepEqual(outcome.failures, [], `${testCase.file}: ${testCase.name}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(mount, { recursive: true, force: true });
  }
});

/**
 * The ExecuteProcess example of docs/http-api.md, replayed against a fresh quickstart exactly as
 * written: the run answers what the page shows (statistics, status), and the GetAction example
 * reads that item.
 */
test('the ExecuteProcess and GetAction examples of the HTTP API page answer what it shows', async () => {
  const { quickstartApp } = await import('../support/http-app.js');
  const text = page('docs/http-api.md');
  const command =
    /curl -s -X POST http:\/\/127\.0\.0\.1:3000(\/api\/ExecuteProcess\/\S+) \\\n\s+-H 'Authorization: Bearer ([^']+)'.*\\\n\s+-d '((?:[^']|'\\'')*)'\n```\n\n```json\n(\{"ID"[\s\S]*?)\n```/.exec(
      text,
    );
  assert.ok(command, 'the page shows a curl ExecuteProcess with a bearer token and a -d body, followed by its answer');
  const [, path, token, shellBody, shownText] = command;
  const shown = JSON.parse(shownText!) as { ID: string; Status: string; Statistics: unknown; Errors: unknown[] };
  const getAction = /curl -s http:\/\/127\.0\.0\.1:3000\/api\/GetAction\/(\S+) \\\n\s+-H 'Authorization: Bearer ([^']+)'/.exec(text);
  assert.ok(getAction, 'the page shows a curl GetAction with a bearer token');
  assert.equal(getAction[1], shown.ID, 'the GetAction example reads the item the ExecuteProcess example answered');
  assert.equal(getAction[2], token);
  const app = await quickstartApp({ env: { QUICKSTART_API_TOKEN: token! } });
  try {
    const body = shellBody!.replaceAll(`'\\''`, `'`);
    const answer = await app.call('POST', path!, { raw: body, headers: { 'content-type': 'application/json' }, token: token! });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json as object), Object.keys(shown));
    assert.equal(answer.json.Status, shown.Status);
    assert.deepEqual(answer.json.Statistics, shown.Statistics);
    assert.deepEqual(answer.json.Errors, shown.Errors);
    const item = await app.get(`/api/GetAction/${answer.json.ID as string}`, token!);
    assert.equal(item.status, 200, item.text);
    assert.deepEqual(item.json, answer.json);
  } finally {
    await app.close();
  }
});

async function send(app: HttpApp, call: CurlCall) {
  const url = new URL(call.url);
  const got = await app.call(call.method, url.pathname + url.search, {
    ...(call.body === undefined ? {} : { raw: call.body }),
    headers: call.headers,
    token: null,
  });
  assert.equal(got.status, call.status, `${call.line}\n${got.text}`);
  if (call.code !== undefined) assert.equal(got.json?.type, `urn:syncline:problem:${call.code}`, call.line);
  return got;
}

/**
 * The webhooks page's walkthrough of the quickstart webhook, replayed against one fresh quickstart
 * top to bottom, as a reader would: the curl call answers the queue item the page shows, every line
 * of the "same call in other forms" block answers the status its comment names, and then the call
 * log walkthrough — with the admin token the page starts the server with — lists those calls, picks
 * an entry whose payload was kept with the page's own `node -pe` line, reads, pins and replays it.
 */
test('the quickstart webhook and call log walkthrough of the webhooks page works top to bottom', async () => {
  const { quickstartApp } = await import('../support/http-app.js');
  const text = page('docs/webhooks.md');
  const command =
    /curl -s -X POST http:\/\/127\.0\.0\.1:3000(\/api\/webhooks\/\S+) \\\n\s+-H 'service_webhooksecret: ([^']+)' -H 'Content-Type: application\/json' \\\n\s+-d '([^']*)'\n```\n\n```json\n(\{"ID"[\s\S]*?)\n```/.exec(
      text,
    );
  assert.ok(command, 'the page shows a curl call of the quickstart webhook with its secret and a JSON body, followed by its answer');
  const [, path, secret, body, shownText] = command;
  const shown = JSON.parse(shownText!) as { ProcessId: string; StartType: string; Status: string; Statistics: unknown; Errors: unknown[] };
  const [variants] = shellBlocks(text, 'W=http://127.0.0.1:3000/api/webhooks/');
  assert.ok(variants, 'the page shows the quickstart webhook call in other forms');
  const start = /^SYNCLINE_ADMIN_TOKEN=(\S+) npm start$/m.exec(text);
  assert.ok(start, 'the page starts the server with the admin token the console walkthrough uses');
  const [consoleBlock] = shellBlocks(text, '/api/console/webhooks/');
  assert.ok(consoleBlock, 'the page shows the call log walkthrough');
  assert.match(
    consoleBlock,
    new RegExp(`^export SYNCLINE_ADMIN_TOKEN=${start[1]!}$`, 'm'),
    'the second terminal uses the token the server was started with',
  );

  const app = await quickstartApp({ adminToken: start[1]! });
  try {
    const answer = await app.call('POST', path!, {
      raw: body!,
      headers: { 'content-type': 'application/json', service_webhooksecret: secret! },
      token: null,
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json as object), Object.keys(shown));
    for (const key of ['ProcessId', 'StartType', 'Status', 'Statistics', 'Errors'] as const)
      assert.deepEqual(answer.json[key], shown[key], key);
    const item = await app.get(`/api/GetAction/${answer.json.ID as string}`);
    assert.equal(item.status, 200, item.text);
    assert.equal(item.json.ProcessId, shown.ProcessId);

    const calls = curlLines(variants);
    assert.ok(calls.length >= 8, `expected at least 8 calls in the block, found ${calls.length}`);
    for (const call of calls) await send(app, call);

    const steps = shellSteps(consoleBlock);
    assert.deepEqual(
      steps.map((step) => step.kind),
      ['curl', 'capture', 'curl', 'curl', 'curl'],
    );
    const captured: Record<string, string> = {};
    const answers = [];
    for (const step of steps) {
      const got = await send(app, withCaptured(step.call, captured));
      answers.push(got);
      if (step.kind === 'capture') {
        // What the shell does: the call's output on standard input of the page's `node -pe` line.
        const picked = spawnSync(process.execPath, ['-pe', step.nodeExpression], { input: got.text, encoding: 'utf8' });
        assert.equal(picked.status, 0, picked.stderr);
        captured[step.name] = picked.stdout.trim();
      }
    }
    const [list, , entry, pinned, replay] = answers;
    const entryId = captured.ENTRY!;
    const listed = (list!.json.entries as Array<{ id: string; status: number; replayable: boolean; hasPayload: boolean }>).find(
      (e) => e.id === entryId,
    );
    assert.ok(listed, `the picked entry ${entryId} is in the list`);
    assert.ok(listed.replayable && listed.hasPayload, 'the walkthrough picks an entry whose payload was kept');
    assert.ok(
      list!.json.entries.some((e: { replayable: boolean }) => !e.replayable),
      'the list also holds calls whose body was refused, which the pick skips',
    );
    assert.ok(entry!.json.payload, 'the entry shows its payload');
    assert.ok(entry!.json.ticker.length > 0, 'the entry shows its ticker');
    assert.equal(pinned!.json.pinned, true, pinned!.text);
    assert.equal(replay!.json.replayOf, entryId);
    assert.equal(replay!.json.response.status, listed.status);
  } finally {
    await app.close();
  }
});

/**
 * The webhook examples the Webhook page shows with their answers, called on a quickstart that
 * holds every YAML example of docs/: the read by email, the account save (created, then updated),
 * and the contact form's redirect.
 */
test('the Webhook page examples answer what the page shows', async () => {
  const { quickstartApp } = await import('../support/http-app.js');
  const text = page('docs/definitions/webhook.md');
  const { files, env, mount } = docsDefinitionFiles();
  after(() => rmSync(mount, { recursive: true, force: true }));
  const read = /^`GET (\/api\/webhooks\/\S+)` answers\n`(\{.*\})`/m.exec(text);
  assert.ok(read, 'the page shows a GET of a webhook with its answer');
  const save = /^A POST of `(\{.*\})` creates the account and\nanswers `(\{.*\})`/m.exec(text);
  assert.ok(save, 'the page shows a POST of the account webhook with its answer');
  const saveId = /^id: (wh_saveErpAccount\w+)$/m.exec(text)?.[1];
  assert.ok(saveId);
  const form =
    /^`curl -si http:\/\/127\.0\.0\.1:3000(\/api\/webhooks\/\S+) -d '([^']*)'`\nanswers `303 See Other` with `Location: (\S+)`/m.exec(text);
  assert.ok(form, 'the page shows the contact form post with its redirect');

  const app = await quickstartApp({ files, env });
  try {
    const got = await app.call('GET', read[1]!, { token: null });
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.json, JSON.parse(read[2]!));

    const sent = JSON.parse(save[1]!) as { number: string; name: string };
    const created = await app.call('POST', `/api/webhooks/${saveId}`, { body: sent, token: null });
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(created.json, JSON.parse(save[2]!));
    const renamed = await app.call('POST', `/api/webhooks/${saveId}`, { body: { ...sent, name: 'Web Shop Ltd' }, token: null });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(
      await app.erp('accounts').where({ AccountNumber: sent.number }).select('AccountName'),
      [{ AccountName: 'Web Shop Ltd' }],
      'the same number again updates the account',
    );

    const posted = await app.call('POST', form[1]!, {
      raw: form[2]!,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      token: null,
    });
    assert.equal(posted.status, 303, posted.text);
    assert.equal(posted.headers.get('location'), form[3]);
    const email = new URLSearchParams(form[2]!).get('email');
    assert.equal((await app.crm('customers').where({ email }).select('name')).length, 1, 'the CRM has the person the form named');
  } finally {
    await app.close();
  }
});

/** The `syncline migrate` transcript of the Operations page: the same migrations, in the same order, on a new file. */
test('the migrate transcript of the Operations page is what syncline migrate prints', async () => {
  const transcript = /^```text\n\$ npx syncline migrate --db (\S+)\n([\s\S]*?)^```$/m.exec(page('docs/operations.md'));
  assert.ok(transcript, 'the page shows a syncline migrate transcript');
  const [, shownPath, shownOutput] = transcript;
  const dir = mkdtempSync(join(tmpdir(), 'syncline-docs-migrate-'));
  try {
    const file = join(dir, 'syncline.db');
    const run = await runCli(['migrate', '--db', file]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((run.stdout + run.stderr).replaceAll(file, shownPath!), shownOutput);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The dry-run transcript of the Command line page: the quickstart sync planned on fresh demo data. */
test('the dry-run transcript of the Command line page is what syncline run --dry-run prints on the demo data', async () => {
  const transcript = /^```text\n\$ npx syncline run crm-customers-to-erp --dry-run\n([\s\S]*?)^```$/m.exec(page('docs/cli.md'));
  assert.ok(transcript, 'the page shows a dry-run transcript');
  const dir = mkdtempSync(join(tmpdir(), 'syncline-docs-dry-run-'));
  try {
    const quickstart = join(repoRoot, 'examples', 'quickstart');
    await createSqliteFromScript(join(dir, 'crm.sqlite'), join(quickstart, 'data', 'crm.sql'));
    await createSqliteFromScript(join(dir, 'erp.sqlite'), join(quickstart, 'data', 'erp.sql'));
    const run = await runCli(['run', 'crm-customers-to-erp', '--dry-run'], {
      env: { CRM_DB: join(dir, 'crm.sqlite'), ERP_DB: join(dir, 'erp.sqlite'), SYNCLINE_DB: join(dir, 'runtime.db') },
    });
    assert.equal(run.code, 0, run.stderr);
    // $now() and the time taken differ from run to run.
    const steady = (text: string) =>
      text.replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g, '"<now>"').replace(/ in [\d.]+ m?s /, ' in <time> ');
    assert.equal(steady(run.stdout), steady(transcript[1]!));
    assert.match(run.stderr, /^running crm-customers-to-erp \(dry run\), 5 source records\n/);
    assert.equal(existsSync(join(dir, 'runtime.db')), false, 'no runtime database was made');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Defaults the docs state, read against the one place each is declared. */
test("the docs state the defaults of the body limit and of a sync's retries as the code declares them", async () => {
  const { defaults } = await import('../../runtime/settings.js');
  const { parseSize } = await import('../../definitions/size.js');
  const { defaultSyncRetries } = await import('../../definitions/schema/kind-schemas.js');
  const bodyLimit = /^\| `--body-limit` \| `SYNCLINE_BODY_LIMIT` \| `([^`]+)`/m.exec(page('docs/operations.md'));
  assert.ok(bodyLimit, 'docs/operations.md lists --body-limit with its default');
  assert.equal(parseSize(bodyLimit[1]!), defaults.bodyLimit);
  const { max, backoff, maxBackoff } = defaultSyncRetries;
  assert.ok(
    page('docs/definitions/sync.md').includes(`retries: { max: ${max}, backoff: ${backoff}, maxBackoff: ${maxBackoff} }`),
    'the Sync example shows the default retries',
  );
});
