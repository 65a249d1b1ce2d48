/**
 * The process logger's standard output, written in batches: every line reaches a reader while
 * the process runs on (within the batch delay), and nothing is lost when the process exits —
 * by process.exit right after logging, or by an uncaught error.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../support/cli-process.js';

const logModule = pathToFileURL(`${projectRoot}/runtime/log.ts`).href;

/** A node process running `body` after `const log = createLogger('info')`; its standard output as lines. */
function child(body: string) {
  const script = `const { createLogger } = await import(${JSON.stringify(logModule)}); const log = createLogger('info'); ${body}`;
  const process_ = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: process_.stdout! }).on('line', (line) => lines.push(line));
  const exited = once(process_, 'exit');
  return { process: process_, lines, exited };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

test('lines of a running process reach the reader without waiting for more lines or for the exit', async () => {
  const {
    process: running,
    lines,
    exited,
  } = child(
    `log.info({ n: 1 }, 'first'); log.info({ n: 2 }, 'second'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`,
  );
  try {
    assert.ok(await until(() => lines.length === 2, 5000), `lines while running: ${JSON.stringify(lines)}`);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { msg: string }).msg),
      ['first', 'second'],
    );
    assert.equal(running.exitCode, null, 'still running');
  } finally {
    running.stdin!.end();
    await exited;
  }
});

test('every line logged before process.exit is written, thousands of them', async () => {
  const { lines, exited } = child(`for (let n = 0; n < 3000; n += 1) log.info({ n }, 'line'); process.exit(0);`);
  await exited;
  assert.equal(lines.length, 3000);
  assert.equal((JSON.parse(lines.at(-1)!) as { n: number }).n, 2999);
});

test('lines logged before an uncaught error are written', async () => {
  const { lines, exited } = child(`log.warn('about to fail'); setTimeout(() => { throw new Error('boom'); }, 5);`);
  const [code] = await exited;
  assert.equal(code, 1);
  assert.deepEqual(
    lines.map((line) => (JSON.parse(line) as { msg: string }).msg),
    ['about to fail'],
  );
});
