/**
 * The README's YAML examples are one consistent set on top of the quickstart: together they must
 * validate, so the documentation cannot drift from the language.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConnectorSpecs } from '../connectors/index.js';
import { loadDefinitions } from '../definitions/load-definitions.js';
import { formatProblem } from '../definitions/problem.js';

/** The registered connectors, which the definitions are checked against. */
const connectors = await loadConnectorSpecs();

const root = new URL('..', import.meta.url).pathname;

function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

test('every YAML example of the README validates together with the quickstart', async () => {
  const blocks = yamlBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
  assert.ok(blocks.length >= 6, `expected the README to show at least 6 YAML examples, found ${blocks.length}`);
  const dir = mkdtempSync(join(tmpdir(), 'syncline-readme-'));
  try {
    cpSync(join(root, 'examples/quickstart'), dir, { recursive: true, filter: (path) => !path.endsWith('.sqlite') });
    blocks.forEach((block, index) => writeFileSync(join(dir, `readme-${index}.yaml`), block));
    const result = await loadDefinitions([dir], {
      connectors,
      env: { SHOP_DATABASE_URL: 'postgres://shop@localhost/shop', SHOP_WEBHOOK_SECRET: 'readme-secret', ERP_INTEGRATION_TOKEN: 'readme-token-0123456789', PARTNER_SIGNING_SECRET: 'readme-signing-secret' },
    });
    assert.deepEqual(result.problems.map(formatProblem), []);
    assert.ok(result.ok);
    assert.ok(result.snapshot.flows.has('order-intake'));
    assert.ok(result.snapshot.webhooks.has('wh_openOrdersPaged0001'));
    assert.ok(result.snapshot.webhooks.has('wh_contactFormToCrm01'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The README's curl example of a read, replayed against the quickstart exactly as written. */
test('the README curl example reads Ada, the customer whose main address is in London', async () => {
  const { quickstartApp } = await import('./support/http-app.js');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const command = /curl -s -X POST http:\/\/127\.0\.0\.1:3000(\/api\/RunConnectionGetDataMin\/\S+) \\\n\s+-H 'Authorization: Bearer ([^']+)'.*\\\n\s+-d '((?:[^']|'\\'')*)'/.exec(readme);
  assert.ok(command, 'the README shows a curl read with a bearer token and a -d body');
  const [, path, token, shellBody] = command;
  const body = shellBody!.replaceAll(`'\\''`, `'`);
  const app = await quickstartApp({ env: { QUICKSTART_API_TOKEN: token! } });
  try {
    const answer = await app.call('POST', path!, { raw: body, headers: { 'content-type': 'application/json' }, token: token! });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual((answer.json as Array<{ name: string }>).map((record) => record.name), ['Ada Lovelace']);
  } finally {
    await app.close();
  }
});

/**
 * The README's ExecuteProcess example, replayed against a fresh quickstart exactly as written: the
 * run answers what the README shows (statistics, status), and the GetAction example reads that item.
 */
test('the README ExecuteProcess and GetAction examples answer what the README shows', async () => {
  const { quickstartApp } = await import('./support/http-app.js');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const command = /curl -s -X POST http:\/\/127\.0\.0\.1:3000(\/api\/ExecuteProcess\/\S+) \\\n\s+-H 'Authorization: Bearer ([^']+)'.*\\\n\s+-d '((?:[^']|'\\'')*)'\n```\n\n```json\n(\{"ID"[\s\S]*?)\n```/.exec(readme);
  assert.ok(command, 'the README shows a curl ExecuteProcess with a bearer token and a -d body, followed by its answer');
  const [, path, token, shellBody, shownText] = command;
  const shown = JSON.parse(shownText!) as { ID: string; Status: string; Statistics: unknown; Errors: unknown[] };
  const getAction = /curl -s http:\/\/127\.0\.0\.1:3000\/api\/GetAction\/(\S+) \\\n\s+-H 'Authorization: Bearer ([^']+)'/.exec(readme);
  assert.ok(getAction, 'the README shows a curl GetAction with a bearer token');
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

/**
 * The README's walkthrough of the quickstart webhook, replayed against a fresh quickstart exactly as
 * written: the curl call answers the queue item the README shows (Pending, a start of the sync),
 * the item is there for GetAction, the call is in the webhook's log, and every line of the "same
 * call in other forms" block answers the status its comment names.
 */
test('the README quickstart webhook curl examples answer what the README shows', async () => {
  const { quickstartApp } = await import('./support/http-app.js');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const command = /curl -s -X POST http:\/\/127\.0\.0\.1:3000(\/api\/webhooks\/\S+) \\\n\s+-H 'service_webhooksecret: ([^']+)' -H 'Content-Type: application\/json' \\\n\s+-d '([^']*)'\n```\n\n```json\n(\{"ID"[\s\S]*?)\n```/.exec(readme);
  assert.ok(command, 'the README shows a curl call of the quickstart webhook with its secret and a JSON body, followed by its answer');
  const [, path, secret, body, shownText] = command;
  const shown = JSON.parse(shownText!) as { ProcessId: string; StartType: string; Status: string; Statistics: unknown; Errors: unknown[] };
  const variants = /```sh\n(W=http:\/\/127\.0\.0\.1:3000\/api\/webhooks\/[\s\S]*?)```/.exec(readme);
  assert.ok(variants, 'the README shows the quickstart webhook call in other forms');
  const app = await quickstartApp();
  try {
    const answer = await app.call('POST', path!, { raw: body!, headers: { 'content-type': 'application/json', service_webhooksecret: secret! }, token: null });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json as object), Object.keys(shown));
    for (const key of ['ProcessId', 'StartType', 'Status', 'Statistics', 'Errors'] as const) assert.deepEqual(answer.json[key], shown[key], key);
    const item = await app.get(`/api/GetAction/${answer.json.ID as string}`);
    assert.equal(item.status, 200, item.text);
    assert.equal(item.json.ProcessId, shown.ProcessId);
    const log = await app.get(`/api/console${path!.slice('/api'.length)}/log?limit=1`);
    assert.equal(log.status, 200, log.text);
    assert.equal(log.json.entries[0].queueItemId, answer.json.ID);

    const calls = curlLines(variants[1]!);
    assert.ok(calls.length >= 8, `expected at least 8 calls in the block, found ${calls.length}`);
    for (const call of calls) {
      const url = new URL(call.url);
      const got = await app.call(call.method, url.pathname + url.search, { ...(call.body === undefined ? {} : { raw: call.body }), headers: call.headers, token: null });
      assert.equal(got.status, call.status, `${call.line}\n${got.text}`);
      if (call.code !== undefined) assert.equal(got.json?.type, `urn:syncline:problem:${call.code}`, call.line);
    }
  } finally {
    await app.close();
  }
});

interface CurlCall {
  line: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  status: number;
  /** The problem code the comment names. */
  code?: string;
}

/**
 * The curl lines of a README shell block as curl would send them: `NAME=value` lines set variables,
 * `'…'` is literal, `"…"` and bare words expand `$NAME`, `-H` adds a header, `-d` sends a POST body
 * (as a form unless a Content-Type is given), and the comment starts with the expected status.
 */
function curlLines(block: string): CurlCall[] {
  const variables: Record<string, string> = {};
  const calls: CurlCall[] = [];
  for (const line of block.split('\n')) {
    const words = shellWords(line, variables);
    if (words.words.length === 0) continue;
    const assignment = /^([A-Za-z_]\w*)=(.*)$/s.exec(words.words[0]!);
    if (words.words.length === 1 && assignment) {
      variables[assignment[1]!] = assignment[2]!;
      continue;
    }
    assert.equal(words.words[0], 'curl', line);
    const expected = /^(\d{3})(?:\s+([a-z][a-z-]*[a-z]))?/.exec(words.comment.trim());
    assert.ok(expected, `the line's comment names the status: ${line}`);
    const call: CurlCall = { line, method: 'GET', url: '', headers: {}, status: Number(expected[1]) };
    if (expected[2] !== undefined && expected[2].includes('-')) call.code = expected[2];
    for (let index = 1; index < words.words.length; index += 1) {
      const word = words.words[index]!;
      if (word === '-H') {
        const header = words.words[++index]!;
        const colon = header.indexOf(':');
        call.headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
      } else if (word === '-d') {
        call.body = words.words[++index]!;
        call.method = 'POST';
      } else if (word === '-X') {
        call.method = words.words[++index]!;
      } else if (word.startsWith('-')) {
        continue;
      } else {
        call.url = word;
      }
    }
    if (call.body !== undefined) call.headers['content-type'] ??= 'application/x-www-form-urlencoded';
    calls.push(call);
  }
  return calls;
}

function shellWords(line: string, variables: Record<string, string>): { words: string[]; comment: string } {
  const expand = (text: string) => text.replace(/\$(\w+)/g, (_, name: string) => variables[name] ?? '');
  const words: string[] = [];
  let current: string | undefined;
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    if (char === "'") {
      const end = line.indexOf("'", index + 1);
      current = (current ?? '') + line.slice(index + 1, end);
      index = end + 1;
    } else if (char === '"') {
      const end = line.indexOf('"', index + 1);
      current = (current ?? '') + expand(line.slice(index + 1, end));
      index = end + 1;
    } else if (char === ' ' || char === '\t') {
      if (current !== undefined) words.push(current);
      current = undefined;
      index += 1;
    } else if (char === '#' && current === undefined) {
      return { words, comment: line.slice(index + 1) };
    } else {
      const match = /^[^\s'"]+/.exec(line.slice(index))![0];
      current = (current ?? '') + expand(match);
      index += match.length;
    }
  }
  if (current !== undefined) words.push(current);
  return { words, comment: '' };
}

/** Defaults the README states, read against the one place each is declared. */
test('the README states the defaults of the body limit and of a sync\'s retries as the code declares them', async () => {
  const { defaults } = await import('../runtime/settings.js');
  const { parseSize } = await import('../definitions/size.js');
  const { defaultSyncRetries } = await import('../definitions/schema/kind-schemas.js');
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const bodyLimit = /^\| `--body-limit` \| `SYNCLINE_BODY_LIMIT` \| `([^`]+)`/m.exec(readme);
  assert.ok(bodyLimit, 'the README lists --body-limit with its default');
  assert.equal(parseSize(bodyLimit[1]!), defaults.bodyLimit);
  const { max, backoff, maxBackoff } = defaultSyncRetries;
  assert.ok(readme.includes(`retries: { max: ${max}, backoff: ${backoff}, maxBackoff: ${maxBackoff} }`), 'the Sync example shows the default retries');
});
