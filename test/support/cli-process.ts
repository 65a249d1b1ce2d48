/**
 * The `syncline` command as a real child process, for tests that need whole processes: several
 * daemons on one database, a daemon killed with SIGKILL, a server and a worker side by side.
 * The JSON log lines of standard output are parsed as they arrive; standard error is kept for
 * failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const projectRoot = resolve(import.meta.dirname, '../..');
/** The command from the sources (bin/syncline-dev.js), so tests never run a stale build. */
const bin = join(projectRoot, 'bin', 'syncline-dev.js');

export interface LogEntry {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface CliProcess {
  child: ChildProcess;
  logs: LogEntry[];
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first log entry (already logged or still to come) that `match` accepts. */
  waitForLog(match: (entry: LogEntry) => boolean, timeoutMs?: number): Promise<LogEntry>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Our environment without any SYNCLINE_* setting, plus `extra`. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SYNCLINE_')));
  return { ...env, SYNCLINE_LOG_LEVEL: 'info', ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command to its end. */
export async function runCli(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? projectRoot,
    env: cliEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

export function startCli(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): CliProcess {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? projectRoot,
    env: cliEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const logs: LogEntry[] = [];
  const waiters = new Set<{ match: (entry: LogEntry) => boolean; resolve: (entry: LogEntry) => void }>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      entry = { level: 30, msg: line };
    }
    logs.push(entry);
    for (const waiter of waiters) {
      if (waiter.match(entry)) {
        waiters.delete(waiter);
        waiter.resolve(entry);
      }
    }
  });
  return {
    child,
    logs,
    stderr: () => stderr,
    exited,
    waitForLog(match, timeoutMs = 30_000) {
      const found = logs.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolveEntry, reject) => {
        const waiter = {
          match,
          resolve: (entry: LogEntry) => {
            clearTimeout(timer);
            resolveEntry(entry);
          },
        };
        waiters.add(waiter);
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `no matching log line within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}; last log: ${JSON.stringify(logs.slice(-5))}`,
            ),
          );
        }, timeoutMs);
        void exited.then(({ code, signal }) => {
          if (!waiters.has(waiter)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          reject(new Error(`syncline ${args[0]} exited (${code ?? signal}) before the expected log line; stderr: ${stderr.slice(-2000)}`));
        });
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
