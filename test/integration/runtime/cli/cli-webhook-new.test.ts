/** `syncline webhook new`: a scaffold that is valid once its sync and secret exist, with a fresh unguessable id. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const cli = join(root, 'bin/syncline-dev.js');

function syncline(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
}

test('webhook new appends a definition that validates once its secret is set', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncline-webhook-new-'));
  try {
    cpSync(join(root, 'examples/quickstart'), dir, { recursive: true, filter: (path) => !path.endsWith('.sqlite') });
    const file = join(dir, 'webhooks.yaml');
    const made = syncline(['webhook', 'new', '--name', 'Shop orders', '--sync', 'crm-customers-to-erp', '--out', file]);
    assert.equal(made.status, 0, made.stderr);
    const id = /added Webhook (wh_[A-Za-z0-9]{22}) /.exec(made.stderr)?.[1];
    assert.ok(id, made.stderr);
    assert.match(readFileSync(file, 'utf8'), new RegExp(`\\n---\\nkind: Webhook\\nid: ${id}\\n`));
    const variable = /its secret comes from (\w+)/.exec(made.stderr)![1]!;

    const unset = syncline(['validate', dir]);
    assert.equal(unset.status, 1, 'the secret variable is not set yet');
    assert.match(unset.stdout, new RegExp(`Webhook/${id}: environment variable ${variable} is not set`));
    const valid = syncline(['validate', dir], { [variable]: 'a-long-shared-secret' });
    assert.equal(valid.status, 0, valid.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('webhook new prints a different id each time', () => {
  const ids = [0, 1, 2].map(() => /^id: (\S+)$/m.exec(syncline(['webhook', 'new']).stdout)?.[1]);
  assert.equal(new Set(ids).size, 3);
  for (const id of ids) assert.match(id ?? '', /^wh_[A-Za-z0-9]{22}$/);
});

test('webhook new refuses a --sync that is no id, and an empty --name, writing nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncline-webhook-new-'));
  try {
    const file = join(dir, 'webhooks.yaml');
    // Written as given, this value would have added a line of its own to the definition.
    const injected = syncline(['webhook', 'new', '--sync', 'x: y\nkind: Flow', '--out', file]);
    assert.equal(injected.status, 2);
    assert.match(injected.stderr, /--sync "x: y\\nkind: Flow" is not a sync id/);
    const spaced = syncline(['webhook', 'new', '--sync', 'bad id']);
    assert.deepEqual([spaced.status, spaced.stdout], [2, '']);
    const unnamed = syncline(['webhook', 'new', '--name', ' ', '--out', file]);
    assert.equal(unnamed.status, 2);
    assert.match(unnamed.stderr, /--name must not be empty/);
    assert.equal(existsSync(file), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
