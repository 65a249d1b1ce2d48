/**
 * Writes that must not lose or half-write anything, with real processes: writers in several
 * processes (and this one) at once lose no update; a writer killed in the middle of a rewrite
 * leaves the original file as it was, and its lock is taken over; a reader never sees a
 * half-written file; a batch is one rewrite; a disk that fills up mid-rewrite (a real tmpfs, where
 * one can be mounted) leaves the file untouched.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import * as fileConnector from '../../../../connectors/file/index.js';
import { lockPathOf } from '../../../../connectors/file/file-lock.js';
import { mountSmallFilesystem, smallFilesystemUnavailable, type SmallFilesystem } from '../../../support/small-filesystem.js';
import { fileWorld, readAll, type FileWorld } from './file-system-fixture.js';
import { contactsSystem } from './writer-process.js';

const script = join(import.meta.dirname, 'writer-process.ts');

function writer(base: string, ...args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', script, base, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal, stdout, stderr }));
  return { child, exited, output: () => stdout };
}

const rows = (text: string) => parse(text, { columns: true }) as Array<Record<string, string>>;

describe('writers in several processes', () => {
  let world: FileWorld;
  before(() => {
    world = fileWorld();
  });
  after(() => world.close());

  test('four processes and this one writing the same file at once lose no record', async () => {
    const workers = [1, 2, 3, 4].map((index) => writer(world.base, 'create', String(index), '25'));
    const connection = world.connect(contactsSystem);
    const here: Promise<unknown>[] = [];
    for (let index = 0; index < 25; index++) here.push(connection.write('Contact', { values: { name: `w0-${index}`, worker: 0 } }));
    await Promise.all(here);
    for (const worker of workers) {
      const result = await worker.exited;
      assert.equal(result.code, 0, result.stderr);
    }
    const written = rows(world.text('contacts.csv'));
    assert.equal(written.length, 125);
    assert.deepEqual(
      written.map((row) => Number(row.id)).sort((a, b) => a - b),
      Array.from({ length: 125 }, (_, index) => index + 1),
      'every generated key once',
    );
    for (let worker = 0; worker <= 4; worker++) {
      const names = written.filter((row) => row.worker === String(worker)).map((row) => row.name);
      // This process started its 25 writes at once, so they have no order among themselves; each
      // child wrote one after another.
      assert.deepEqual(
        worker === 0 ? names.sort((a, b) => Number(a!.slice(3)) - Number(b!.slice(3))) : names,
        Array.from({ length: 25 }, (_, index) => `w${worker}-${index}`),
        `worker ${worker}'s records`,
      );
    }
    assert.equal(existsSync(lockPathOf(join(world.data, 'contacts.csv'))), false);
  });
});

describe('a writer killed in the middle of a rewrite', () => {
  let world: FileWorld;
  let original: string;
  before(() => {
    world = fileWorld();
    const lines = ['id,name,worker'];
    for (let id = 1; id <= 400_000; id++) lines.push(`${id},contact number ${id} with a longer name,${id % 7}`);
    original = `${lines.join('\n')}\n`;
    world.put('contacts.csv', original);
  });
  after(() => world.close());

  test('leaves the original as it was, and its lock is taken over at once', async () => {
    const killed = writer(world.base, 'touch');
    const deadline = Date.now() + 60_000;
    let temporary: string | undefined;
    while (temporary === undefined && Date.now() < deadline && killed.child.exitCode === null) {
      temporary = readdirSync(world.data).find((name) => name.endsWith('.tmp'));
      if (temporary === undefined) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    assert.ok(temporary, `the child began its rewrite (${killed.output()})`);
    killed.child.kill('SIGKILL');
    const result = await killed.exited;
    assert.equal(result.signal, 'SIGKILL', 'killed before it finished');
    assert.equal(world.text('contacts.csv'), original, 'the original is whole and unchanged');
    assert.ok(existsSync(lockPathOf(join(world.data, 'contacts.csv'))), 'the dead writer left its lock');

    const connection = world.connect(contactsSystem);
    const started = Date.now();
    assert.deepEqual(await connection.write('Contact', { values: { name: 'after the crash' } }), {
      action: 'created',
      key: { id: 400_001 },
    });
    assert.ok(Date.now() - started < 20_000, 'the lock of a dead process is not waited for');
    const text = world.text('contacts.csv');
    assert.ok(text.startsWith(original));
    assert.equal(text.slice(original.length), '400001,after the crash,\n');
  });
});

describe('readers and batches', () => {
  let world: FileWorld;
  before(() => {
    world = fileWorld();
    const lines = ['id,name,worker'];
    for (let id = 1; id <= 50_000; id++) lines.push(`${id},name ${id},1`);
    world.put('contacts.csv', `${lines.join('\n')}\n`);
  });
  after(() => world.close());

  test('a reader never sees a half-written file', async () => {
    const connection = world.connect(contactsSystem);
    let writing = true;
    const seen: number[] = [];
    const reads = (async () => {
      while (writing) {
        // Straight from the disk, parsed strictly: half a file would not parse, or would lose rows.
        seen.push(rows(readFileSync(join(world.data, 'contacts.csv'), 'utf8')).length);
        seen.push((await readAll(connection, 'Contact')).length);
      }
    })();
    for (let index = 0; index < 15; index++) await connection.write('Contact', { values: { name: `new ${index}`, worker: 2 } });
    writing = false;
    await reads;
    assert.ok(seen.length > 4, `read ${seen.length} times while writing`);
    assert.ok(
      seen.every((count) => count >= 50_000 && count <= 50_015),
      `every read saw a whole file: ${[...new Set(seen)].join(', ')}`,
    );
    assert.ok(
      seen.every((count, index) => index < 2 || count >= Math.min(seen[index - 1]!, seen[index - 2]!)),
      'and never an older one later',
    );
  });

  test('a batch is one rewrite', async () => {
    const connection = world.connect(contactsSystem);
    const temporary = new Set<string>();
    const watcher = watch(world.data, (_event, name) => {
      if (name?.endsWith('.tmp')) temporary.add(name);
    });
    try {
      const results = await connection.writeMany(
        'Contact',
        Array.from({ length: 200 }, (_, index) => ({ values: { id: index + 1, name: `renamed ${index}` } })),
      );
      assert.ok(results.every((result) => !(result instanceof ConnectorError) && result.action === 'updated'));
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      watcher.close();
    }
    assert.equal(temporary.size, 1, [...temporary].join(', '));
    assert.equal(rows(world.text('contacts.csv'))[199]!.name, 'renamed 199');
  });
});

describe('a disk that fills up in the middle of a rewrite', async () => {
  const unavailable = await smallFilesystemUnavailable();
  let disk: SmallFilesystem;
  let original: string;
  before(async () => {
    if (unavailable !== undefined) return;
    disk = await mountSmallFilesystem('2m');
    const lines = ['id,name,worker'];
    for (let id = 1; id <= 30_000; id++) lines.push(`${id},name ${id},1`);
    original = `${lines.join('\n')}\n`;
    writeFileSync(join(disk.dir, 'contacts.csv'), original);
  });
  after(async () => {
    if (unavailable === undefined) await disk.remove();
  });

  test('rejects the batch as unavailable and leaves the file, and no temporary file, behind', { skip: unavailable }, async () => {
    const system = { ...contactsSystem, connection: { directory: disk.dir } };
    const connection = fileConnector.createConnection(system, { baseDirectory: disk.dir });
    try {
      await disk.fill();
      await assert.rejects(
        connection.write('Contact', { values: { id: 1, name: 'refused' } }),
        /taking the write lock failed: the disk is full/,
      );
      assert.deepEqual(
        readdirSync(disk.dir).filter((name) => name.startsWith('.')),
        [],
        'a lock file that could not be written is not left to be waited for',
      );
      // Room for the lock, none for the new file.
      const filler = join(disk.dir, 'filler');
      truncateSync(filler, statSync(filler).size - 64 * 1024);
      await assert.rejects(
        connection.writeMany('Contact', [{ values: { id: 1, name: 'refused' } }, { values: { name: 'new' } }]),
        (error: unknown) => {
          assert.ok(error instanceof ConnectorError);
          assert.equal(error.code, 'unavailable');
          assert.match(error.message, /file contacts\.csv: rewriting the file failed: the disk is full/);
          return true;
        },
      );
      assert.equal(readFileSync(join(disk.dir, 'contacts.csv'), 'utf8'), original);
      assert.deepEqual(
        readdirSync(disk.dir).filter((name) => name.startsWith('.')),
        [],
        'neither a temporary file nor a lock is left',
      );
      await disk.free();
      assert.deepEqual(await connection.write('Contact', { values: { id: 1, name: 'written' } }), { action: 'updated', key: { id: 1 } });
    } finally {
      await connection.close();
    }
  });
});
