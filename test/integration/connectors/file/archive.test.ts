/**
 * Settling a read (Connection.settle), which the sync engine calls after a Complete run without
 * failed records: the files the read consumed to their end move to the archive folder under a
 * free name; a file changed since, one the read stopped short of, and anything a plain read
 * touched stay where they are; an archive folder that is a link out of the directory is refused.
 * (The sync engine's part: test/integration/runtime/http/file-system.test.ts.)
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, test } from 'node:test';
import type { ReadReceipt } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { fileWorld, readAll, type FileWorld } from './file-system-fixture.js';

const fields = { number: { type: 'Integer' }, email: { type: 'String' } };
let world: FileWorld;
const worlds: FileWorld[] = [];

beforeEach(() => {
  world = fileWorld();
  worlds.push(world);
  world.put('inbox/orders-1.csv', 'number,email\n1,a@x\n2,b@x\n');
  world.put('inbox/orders-2.ndjson', '{"number":3}\n');
  world.put('inbox/orders-3.csv', 'number,email\n4,d@x\n');
});
after(async () => {
  for (const each of worlds) await each.close();
});

const system = (archive: Record<string, unknown> = { moveTo: 'done' }) =>
  world.system({
    Order: { path: 'inbox/orders-*.csv', key: ['number'], fields, archive },
    Plain: { path: 'inbox/orders-1.csv', key: ['number'], fields },
  });
const listing = (folder: string) => (existsSync(join(world.data, folder)) ? readdirSync(join(world.data, folder)).sort() : []);

test('the files a read consumed to their end move to the archive; a plain read notes nothing', async () => {
  const connection = world.connect(system());
  assert.equal((await readAll(connection, 'Order')).length, 3);
  assert.deepEqual(listing('inbox'), ['orders-1.csv', 'orders-2.ndjson', 'orders-3.csv'], 'a read without a receipt moves nothing');
  const receipt: ReadReceipt = { completed: [] };
  assert.equal((await readAll(connection, 'Order', { receipt })).length, 3);
  assert.deepEqual(
    receipt.completed.map((entry) => entry.source),
    ['inbox/orders-1.csv', 'inbox/orders-3.csv'],
  );
  await connection.settle!('Order', receipt);
  assert.deepEqual(listing('inbox'), ['orders-2.ndjson']);
  assert.deepEqual(listing('done'), ['orders-1.csv', 'orders-3.csv']);
  assert.equal(readFileSync(join(world.data, 'done', 'orders-1.csv'), 'utf8'), 'number,email\n1,a@x\n2,b@x\n');
});

test('a file changed since it was read, or read only in part, stays to be read again', async () => {
  const connection = world.connect(system());
  const receipt: ReadReceipt = { completed: [] };
  await readAll(connection, 'Order', { receipt });
  appendFileSync(join(world.data, 'inbox', 'orders-3.csv'), '5,e@x\n');
  await connection.settle!('Order', receipt);
  assert.deepEqual(listing('inbox'), ['orders-2.ndjson', 'orders-3.csv']);
  const partial: ReadReceipt = { completed: [] };
  await readAll(connection, 'Order', { receipt: partial, limit: 1 });
  assert.deepEqual(partial.completed, [], 'a read stopped by its limit consumed no file to its end');
});

test('a name taken in the archive gets the first free numbered suffix; nothing is overwritten', async () => {
  world.put('done/orders-1.csv', 'earlier');
  world.put('done/orders-1.1.csv', 'earlier too');
  const connection = world.connect(system({ moveTo: 'done/' }));
  const receipt: ReadReceipt = { completed: [] };
  await readAll(connection, 'Order', { receipt });
  await connection.settle!('Order', receipt);
  assert.deepEqual(listing('done'), ['orders-1.1.csv', 'orders-1.2.csv', 'orders-1.csv', 'orders-3.csv']);
  assert.equal(readFileSync(join(world.data, 'done', 'orders-1.csv'), 'utf8'), 'earlier');
  assert.equal(readFileSync(join(world.data, 'done', 'orders-1.2.csv'), 'utf8'), 'number,email\n1,a@x\n2,b@x\n');
});

test('the archive folder must stay inside the directory', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'syncline-archive-out-'));
  try {
    symlinkSync(outside, join(world.data, 'away'));
    const connection = world.connect(system({ moveTo: 'away' }));
    const receipt: ReadReceipt = { completed: [] };
    await readAll(connection, 'Order', { receipt });
    await assert.rejects(
      connection.settle!('Order', receipt),
      (error: unknown) =>
        error instanceof ConnectorError && error.code === 'unavailable' && /file away: .*outside the directory/.test(error.message),
    );
    assert.deepEqual(readdirSync(outside), []);
    assert.deepEqual(listing('inbox'), ['orders-1.csv', 'orders-2.ndjson', 'orders-3.csv']);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

test('no folder is made outside the directory through a link on the archive path', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'syncline-archive-out-'));
  try {
    symlinkSync(outside, join(world.data, 'away'));
    const connection = world.connect(system({ moveTo: 'away/2024/june' }));
    const receipt: ReadReceipt = { completed: [] };
    await readAll(connection, 'Order', { receipt });
    await assert.rejects(
      connection.settle!('Order', receipt),
      (error: unknown) => error instanceof ConnectorError && error.code === 'unavailable' && /outside the directory/.test(error.message),
    );
    assert.deepEqual(readdirSync(outside), [], 'nothing was created outside');
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

test('a link in the drop folder is archived as the link; the file it names stays', async () => {
  world.put('exports/accounts.csv', 'number,email\n9,z@x\n');
  symlinkSync('../exports/accounts.csv', join(world.data, 'inbox', 'orders-9.csv'));
  const connection = world.connect(system());
  const receipt: ReadReceipt = { completed: [] };
  assert.equal((await readAll(connection, 'Order', { receipt })).length, 4);
  await connection.settle!('Order', receipt);
  assert.deepEqual(listing('done'), ['orders-1.csv', 'orders-3.csv', 'orders-9.csv']);
  assert.equal(readFileSync(join(world.data, 'exports', 'accounts.csv'), 'utf8'), 'number,email\n9,z@x\n', 'the named file is not moved');
  assert.ok(lstatSync(join(world.data, 'done', 'orders-9.csv')).isSymbolicLink(), 'the link itself moved');
  assert.deepEqual(listing('inbox'), ['orders-2.ndjson']);
});
