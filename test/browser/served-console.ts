/**
 * What the browser tests drive: `syncline serve` (from the sources, bin/syncline-dev.js) on a free
 * port over a temporary copy of the quickstart with fresh demo databases and its own runtime
 * database, with a known admin token; and Debian's Chromium through playwright-core, with a
 * fresh profile. The console is built first (bin/build.js, quick when nothing changed), since the
 * server serves dist/console.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type BrowserContext } from 'playwright-core';
import { createSqliteFromScript } from '../../examples/quickstart/sql-script.js';
import { cliEnv, projectRoot } from '../support/cli-process.js';

export const chromiumPath = '/usr/bin/chromium';
export const adminToken = 'console-admin-token-0123456789-never-shown';
/** The quickstart's own client: queue and systems scopes, but not `console`. */
export const operatorToken = 'console-operator-token-0123456789-no-console-scope';

/**
 * Whether the browser tests can run: outside CI a machine without Chromium skips them with one
 * visible line; in CI (CI=true) its absence fails them, so a broken image cannot pass unseen.
 */
export function chromiumSkip(): string | false {
  if (existsSync(chromiumPath)) return false;
  if (process.env.CI === 'true') throw new Error(`${chromiumPath} is missing; .ci/run installs it (apt-get install -y chromium)`);
  const reason = `browser tests skipped: ${chromiumPath} is missing (apt-get install -y chromium)`;
  console.log(`# ${reason}`);
  return reason;
}

export function buildConsole(): void {
  const built = spawnSync(process.execPath, [join(projectRoot, 'bin', 'build.js')], { cwd: projectRoot, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`bin/build.js failed:\n${built.stdout}\n${built.stderr}`);
}

export interface ServedConsole {
  base: string;
  dir: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/**
 * `serve` over a fresh quickstart. `erpSql`: statements run on the ERP database after its demo
 * data (a trigger that refuses one account, so a run has a record error to show). `files`: more
 * definition files beside the quickstart's, by name.
 */
export async function serveQuickstart(options: {
  daemon: boolean;
  erpSql?: string;
  files?: Record<string, string>;
}): Promise<ServedConsole> {
  const dir = mkdtempSync(join(tmpdir(), 'syncline-console-'));
  const quickstart = join(projectRoot, 'examples', 'quickstart');
  for (const name of readdirSync(quickstart).filter((file) => file.endsWith('.yaml'))) {
    writeFileSync(join(dir, name), readFileSync(join(quickstart, name)));
  }
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
  await createSqliteFromScript(join(dir, 'crm.sqlite'), join(quickstart, 'data', 'crm.sql'));
  const erpScript = join(dir, 'erp.sql');
  writeFileSync(erpScript, `${readFileSync(join(quickstart, 'data', 'erp.sql'), 'utf8')}\n${options.erpSql ?? ''}\n`);
  await createSqliteFromScript(join(dir, 'erp.sqlite'), erpScript);
  const args = ['serve', '--definitions', dir, '--port', '0', '--db', join(dir, 'syncline.db'), ...(options.daemon ? [] : ['--no-daemon'])];
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'syncline-dev.js'), ...args], {
    cwd: projectRoot,
    env: cliEnv({
      SYNCLINE_ADMIN_TOKEN: adminToken,
      QUICKSTART_API_TOKEN: operatorToken,
      CRM_DB: join(dir, 'crm.sqlite'),
      ERP_DB: join(dir, 'erp.sqlite'),
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const base = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /"msg":"serving on (http:\/\/[^"]+)"/.exec(line);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`serve exited before listening: ${stderr}`)));
    setTimeout(() => reject(new Error(`serve did not listen within 30 s: ${stderr}`)), 30_000).unref();
  });
  return {
    base,
    dir,
    child,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Chromium with a fresh profile, as the issue names its flags; closed with the returned context. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'syncline-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
