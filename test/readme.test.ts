/**
 * The README's YAML examples are one consistent set on top of the quickstart: together they must
 * validate, so the documentation cannot drift from the language.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadDefinitions } from '../definitions/load-definitions.js';
import { formatProblem } from '../definitions/problem.js';

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
      env: { SHOP_DATABASE_URL: 'postgres://shop@localhost/shop', SHOP_WEBHOOK_SECRET: 'readme-secret', ERP_INTEGRATION_TOKEN: 'readme-token-0123456789' },
    });
    assert.deepEqual(result.problems.map(formatProblem), []);
    assert.ok(result.ok);
    assert.ok(result.snapshot.flows.has('order-intake'));
    assert.ok(result.snapshot.webhooks.has('wh_openOrdersPaged0001'));
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
