/**
 * Start-up of the `syncline` command, compiled (bin/syncline.js, the JavaScript under dist/ that
 * an installed package runs) against the TypeScript sources compiled on load by tsx
 * (bin/syncline-dev.js, how the package ran before it had a build): cold `syncline --help`, cold
 * `syncline validate examples/quickstart`, and `syncline serve` from its start to the first
 * answer of /healthz with the resident memory at that moment. The two are alternated run by run,
 * so the machine's mood falls on both alike; the figures are medians and the ratios
 * compiled / sources (below 1: the build is faster or smaller).
 *
 * Run with `npm run bench -- startup` (which builds dist/ first), or `npx tsx test/bench/startup.bench.ts`
 * after `npm run build`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, ms, table } from './stats.js';

const root = resolve(import.meta.dirname, '../..');
const commands = { compiled: join(root, 'bin', 'syncline.js'), sources: join(root, 'bin', 'syncline-dev.js') } as const;
type Variant = keyof typeof commands;
const runs = Number(process.env.BENCH_STARTUP_RUNS ?? 7);
const quickstart = join(root, 'examples', 'quickstart');

function runToEnd(variant: Variant, args: string[]): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, [commands[variant], ...args], { encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${variant} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

/** Resident memory of a process in bytes, from /proc (Linux). */
function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  return Number(kib ?? 0) * 1024;
}

async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
  } catch {
    return false;
  }
}

/** serve → first 200 of /healthz: milliseconds and the resident memory then. */
async function serveToHealthy(variant: Variant, port: number): Promise<{ ms: number; rss: number }> {
  const work = mkdtempSync(join(tmpdir(), 'syncline-startup-'));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [commands[variant], 'serve', '--definitions', quickstart, '--db', join(work, 'runtime.db'), '--port', String(port)],
    { stdio: 'ignore', env: { ...process.env, SYNCLINE_ADMIN_TOKEN: 'bench-admin-token-0123456789', SYNCLINE_LOG_LEVEL: 'warn' } },
  );
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${variant} serve exited ${child.exitCode}`);
      if (await healthy(port)) break;
      await new Promise((done) => setTimeout(done, 5));
    }
    return { ms: performance.now() - started, rss: residentBytes(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    rmSync(work, { recursive: true, force: true });
  }
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

export async function run(): Promise<void> {
  if (!existsSync(join(root, 'dist', 'runtime', 'cli', 'main.js'))) {
    spawnSync(process.execPath, [join(root, 'bin', 'build.js')], { stdio: 'inherit' });
  }
  if (!existsSync(join(quickstart, 'data', 'crm.sqlite'))) {
    spawnSync(process.execPath, [join(root, 'dist', 'examples', 'quickstart', 'create-demo-data.js')], { stdio: 'inherit' });
  }
  const samples: Record<Variant, { help: number[]; validate: number[]; serve: number[]; rss: number[] }> = {
    compiled: { help: [], validate: [], serve: [], rss: [] },
    sources: { help: [], validate: [], serve: [], rss: [] },
  };
  const port = 31_000 + (process.pid % 2000);
  // One unmeasured round of each warms the file cache, as a machine that has run the command once has.
  for (const variant of ['compiled', 'sources'] as const) runToEnd(variant, ['--help']);
  for (let round = 0; round < runs; round += 1) {
    const order: Variant[] = round % 2 === 0 ? ['compiled', 'sources'] : ['sources', 'compiled'];
    for (const variant of order) {
      samples[variant].help.push(runToEnd(variant, ['--help']));
      samples[variant].validate.push(runToEnd(variant, ['validate', quickstart]));
      const served = await serveToHealthy(variant, port);
      samples[variant].serve.push(served.ms);
      samples[variant].rss.push(served.rss);
    }
  }
  const row = (label: string, pick: (variant: Variant) => number[], format: (value: number) => string) => {
    const compiled = median(pick('compiled'));
    const sources = median(pick('sources'));
    return [label, format(compiled), format(sources), `${(compiled / sources).toFixed(2)}×`];
  };
  console.log(`start-up, medians of ${runs} runs each, alternated (node ${process.version})\n`);
  console.log(
    table(
      ['', 'compiled (dist/)', 'sources (tsx)', 'compiled / sources'],
      [
        row('syncline --help', (v) => samples[v].help, ms),
        row('syncline validate examples/quickstart', (v) => samples[v].validate, ms),
        row('syncline serve → /healthz', (v) => samples[v].serve, ms),
        row('RSS at the first /healthz', (v) => samples[v].rss, mib),
      ],
    ),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await run();
