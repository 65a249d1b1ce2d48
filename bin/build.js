#!/usr/bin/env node
// `npm run build`: compiles the sources to dist/ (tsconfig.build.json; incremental, so a build
// after a small change takes a moment) and copies beside them the files compiled modules read at
// run time: the definition kinds' JSON Schemas. Then builds the operator console (console/, Vite)
// into dist/console, unless its sources and the bundler's versions are those of the last console
// build. `--clean` starts from an empty dist/, as a packed package must (no module of a deleted
// source left behind).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
if (process.argv.includes('--clean')) rmSync(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const schemas = join(root, 'definitions', 'schemas');
cpSync(schemas, join(dist, 'definitions', 'schemas'), { recursive: true, filter: (path) => path === schemas || path.endsWith('.json') });

await buildConsole();

/**
 * The console's sources and the versions of what builds them, as one digest: equal digests build
 * equal bundles, so an unchanged console costs a few file reads instead of a Vite run.
 */
function consoleDigest(sources) {
  const hash = createHash('sha256');
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
    );
  for (const file of files(sources).sort()) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  const require = createRequire(import.meta.url);
  for (const name of ['vite', 'preact']) hash.update(`${name}@${require(`${name}/package.json`).version}\0`);
  return hash.digest('hex');
}

async function buildConsole() {
  const sources = join(root, 'console');
  const out = join(dist, 'console');
  // Kept beside dist/console, not in it: everything in dist/console is served.
  const stamp = join(dist, '.console-digest');
  const digest = consoleDigest(sources);
  if (existsSync(join(out, 'index.html')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  const { build } = await import('vite');
  await build({ configFile: join(sources, 'vite.config.ts'), mode: 'production' });
  writeFileSync(stamp, digest);
}
