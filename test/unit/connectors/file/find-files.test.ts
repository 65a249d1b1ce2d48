/**
 * The files of a glob: every match, in the code-unit order of their paths whatever order the
 * directory lists them in, no deeper than the glob reaches, without hidden files (the connector's
 * locks and temporary files) or the archive folder.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { comparePaths, matchingFiles } from '../../../../connectors/file/find-files.js';

let directory: string;

before(() => {
  directory = mkdtempSync(join(tmpdir(), 'syncline-glob-'));
  for (const folder of ['inbox', 'inbox/deep', 'done', 'other']) mkdirSync(join(directory, folder), { recursive: true });
  const files = [
    'inbox/orders-10.csv',
    'inbox/orders-2.csv',
    'inbox/Orders-3.csv',
    'inbox/orders-1.csv',
    'inbox/orders-1.csv.bak',
    'inbox/.orders-9.csv.lock',
    'inbox/.orders-9.csv.123.abcd.tmp',
    'inbox/deep/orders-4.csv',
    'done/orders-0.csv',
    'other/orders-5.csv',
    'top.csv',
  ];
  for (const file of files) writeFileSync(join(directory, file), 'id\n1\n');
  symlinkSync(join(directory, 'top.csv'), join(directory, 'inbox', 'orders-7.csv'));
});
after(() => rmSync(directory, { recursive: true, force: true }));

test('a glob lists its matches in code-unit order of their paths', async () => {
  assert.deepEqual(await matchingFiles(directory, 'inbox/orders-*.csv'), [
    'inbox/orders-1.csv',
    'inbox/orders-10.csv',
    'inbox/orders-2.csv',
    'inbox/orders-7.csv',
  ]);
  assert.deepEqual(await matchingFiles(directory, 'inbox/*rders-*.csv'), [
    'inbox/Orders-3.csv',
    'inbox/orders-1.csv',
    'inbox/orders-10.csv',
    'inbox/orders-2.csv',
    'inbox/orders-7.csv',
  ]);
});

test('a glob goes as deep as it reaches, and passes over hidden files and the archive folder', async () => {
  assert.deepEqual(await matchingFiles(directory, '*.csv'), ['top.csv']);
  assert.deepEqual(await matchingFiles(directory, '**/orders-*.csv', 'done/'), [
    'inbox/deep/orders-4.csv',
    'inbox/orders-1.csv',
    'inbox/orders-10.csv',
    'inbox/orders-2.csv',
    'inbox/orders-7.csv',
    'other/orders-5.csv',
  ]);
  assert.ok((await matchingFiles(directory, '**/orders-*.csv')).includes('done/orders-0.csv'));
  assert.deepEqual(await matchingFiles(directory, 'inbox/*.lock'), []);
  assert.deepEqual(await matchingFiles(directory, 'missing/*.csv'), []);
});

test('paths compare by code unit: upper case before lower case, shorter prefix first', () => {
  assert.deepEqual(['b', 'a/b', 'B', 'a', 'a-b', 'ä'].sort(comparePaths), ['B', 'a', 'a-b', 'a/b', 'b', 'ä']);
});
