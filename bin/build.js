#!/usr/bin/env node
// `npm run build`: compiles the sources to dist/ (tsconfig.build.json; incremental, so a build
// after a small change takes a moment) and copies beside them the files compiled modules read at
// run time: the definition kinds' JSON Schemas. `--clean` starts from an empty dist/, as a packed
// package must (no module of a deleted source left behind).
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
if (process.argv.includes('--clean')) rmSync(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const schemas = join(root, 'definitions', 'schemas');
cpSync(schemas, join(dist, 'definitions', 'schemas'), { recursive: true, filter: (path) => path === schemas || path.endsWith('.json') });
