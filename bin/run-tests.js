#!/usr/bin/env node
// Runs every test file under test/ (except benchmarks) with node's built-in runner through tsx.
// Node 20's --test does not expand globs, so the file list is collected here.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'bench' || entry.name === 'fixtures' ? [] : collect(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = collect('test').sort();
const only = process.argv.slice(2);
const selected = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...selected], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
