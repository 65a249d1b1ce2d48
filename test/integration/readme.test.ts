/**
 * README.md is the landing page: its quick-start examples work as written against the quickstart,
 * and every link of it and of docs/ leads to a file and heading that exist. The reference pages'
 * own examples are replayed by test/integration/docs.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { docsPages, page, repoRoot } from '../support/doc-examples.js';

/** The README's curl example of a read, replayed against the quickstart exactly as written. */
test('the README curl example reads Ada, the customer whose main address is in London', async () => {
  const { quickstartApp } = await import('../support/http-app.js');
  const readme = page('README.md');
  const command =
    /curl -s -X POST http:\/\/127\.0\.0\.1:3000(\/api\/RunConnectionGetDataMin\/\S+) \\\n\s+-H 'Authorization: Bearer ([^']+)'.*\\\n\s+-d '((?:[^']|'\\'')*)'/.exec(
      readme,
    );
  assert.ok(command, 'the README shows a curl read with a bearer token and a -d body');
  const [, path, token, shellBody] = command;
  const body = shellBody!.replaceAll(`'\\''`, `'`);
  const app = await quickstartApp({ env: { QUICKSTART_API_TOKEN: token! } });
  try {
    const answer = await app.call('POST', path!, { raw: body, headers: { 'content-type': 'application/json' }, token: token! });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      (answer.json as Array<{ name: string }>).map((record) => record.name),
      ['Ada Lovelace'],
    );
  } finally {
    await app.close();
  }
});

/** The README's first curl lines: /healthz answers what its comment shows, /readyz answers. */
test('the README health and readiness curl lines answer as shown', async () => {
  const { quickstartApp } = await import('../support/http-app.js');
  const readme = page('README.md');
  const health = /^curl http:\/\/127\.0\.0\.1:3000(\/healthz)\s+# (\{.*\})$/m.exec(readme);
  assert.ok(health, 'the README shows a curl of /healthz with its answer');
  const ready = /^curl http:\/\/127\.0\.0\.1:3000(\/readyz)\s+#/m.exec(readme);
  assert.ok(ready, 'the README shows a curl of /readyz');
  const app = await quickstartApp();
  try {
    const healthy = await app.get(health[1]!, null);
    assert.equal(healthy.status, 200, healthy.text);
    assert.deepEqual(healthy.json, JSON.parse(health[2]!));
    const readiness = await app.get(ready[1]!, null);
    assert.equal(readiness.status, 200, readiness.text);
  } finally {
    await app.close();
  }
});

test('the README names the port of its first curl and how to change it, with the flag and variable serve reads', async () => {
  const readme = page('README.md');
  const firstCurl = readme.indexOf('curl http://127.0.0.1:3000/');
  const before = readme.slice(0, firstCurl);
  assert.match(before, /port 3000/);
  assert.match(before, /--port 8080/);
  assert.match(before, /SYNCLINE_PORT=8080/);
  const { serveSettings } = await import('../../runtime/settings.js');
  assert.equal(serveSettings({ port: '8080' }, {}).port, 8080);
  assert.equal(serveSettings({}, { SYNCLINE_PORT: '8080' }).port, 8080);
  assert.equal(serveSettings({}, {}).port, 3000);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  const outsideCode = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...outsideCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!)));
}

test('every link of the README and docs/ leads to a file and a heading that exist', () => {
  const broken: string[] = [];
  for (const from of ['README.md', ...docsPages()]) {
    const text = page(from).replace(/^```[\s\S]*?^```$/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [file, anchor] = target!.split('#') as [string, string | undefined];
      const path = file === '' ? join(repoRoot, from) : join(repoRoot, dirname(from), file);
      if (!existsSync(path)) {
        broken.push(`${from}: ${target} (no ${relative(repoRoot, path)})`);
        continue;
      }
      if (anchor !== undefined && statSync(path).isFile() && !anchors(page(relative(repoRoot, path))).has(anchor)) {
        broken.push(`${from}: ${target} (no heading #${anchor})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});
