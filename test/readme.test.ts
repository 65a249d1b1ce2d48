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
