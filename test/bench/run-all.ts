/**
 * `npm run bench`: runs every `*.bench.ts` beside this file, one after another, each in a fresh
 * process so that one benchmark's warm caches cannot flatter the next one's cold figures.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const here = import.meta.dirname;
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts') && (only.length === 0 || only.some((o) => name.includes(o))))
  .sort();

const failed: string[] = [];
for (const name of benches) {
  console.log(`\n== ${name.replace(/\.bench\.ts$/, '')} ${'='.repeat(Math.max(0, 72 - name.length))}`);
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(here, name)], { stdio: 'inherit' });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.status === 0) {
    console.log(`\n${name}: done in ${seconds} s`);
  } else {
    failed.push(name);
    console.log(`\n${name}: FAILED (exit ${result.status ?? result.signal}) after ${seconds} s`);
  }
}
console.log(
  `\nnode ${process.version}, ${process.platform}/${process.arch}; ${benches.length - failed.length} of ${benches.length} benchmarks ran`,
);
process.exitCode = failed.length === 0 ? 0 : 1;
