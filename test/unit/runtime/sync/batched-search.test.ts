/**
 * MatchIndex.load narrowing a refused read: the chunk is split in halves down to the tuples the
 * target refuses on their own, every other tuple is found exactly once (even when the refused read
 * had already answered a page), and only errors the caller calls refusals are narrowed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection, ReadRequest, RecordData } from '../../../../connectors/connection.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import type { InNode } from '../../../../definitions/expression/index.js';
import { MatchIndex } from '../../../../runtime/sync/batched-search.js';
import type { Equality } from '../../../../runtime/sync/match-plan.js';
import { isRecordRejection } from '../../../../runtime/sync/run-report.js';

const equalities: Equality[] = [{ field: 'code', type: 'String', placeholder: ['code'] }];
const codes = ['a', 'b', 'c', 'd', 'e\u0000', 'f', 'g', 'h'];

/** A target holding one record per code that refuses any read naming a code with NUL — after its first page, as a paged read may. */
function target(refusal: () => Error): { connection: Connection; reads: string[][] } {
  const reads: string[][] = [];
  const connection = {
    async *read(_object: string, request: ReadRequest = {}): AsyncGenerator<RecordData[]> {
      const asked = (request.filter as InNode).list.map((node) => String(request.placeholders!((node as { path: string[] }).path)));
      reads.push(asked);
      const found = asked.map((code) => ({ code, label: code.toUpperCase() }));
      yield found.slice(0, 1);
      if (asked.some((code) => code.includes('\u0000'))) throw refusal();
      if (found.length > 1) yield found.slice(1);
    },
  } as unknown as Connection;
  return { connection, reads };
}

const refusedValue = () => new ConnectorError('invalid-value', 'a text value holds the NUL character (U+0000)');

test('a refused tuple is left out with its error; the others are found once each, in few reads', async () => {
  const { connection, reads } = target(refusedValue);
  const index = await MatchIndex.load(
    connection,
    'Thing',
    equalities,
    codes.map((code) => [code]),
    undefined,
    isRecordRejection,
  );
  for (const code of codes.filter((code) => !code.includes('\u0000'))) {
    assert.deepEqual(index.find([code]), [{ code, label: code.toUpperCase() }], code);
    assert.equal(index.refused([code]), undefined);
  }
  assert.deepEqual(index.find(['e\u0000']), []);
  assert.match(index.refused(['e\u0000'])?.message ?? '', /NUL character/);
  // The whole chunk, then halves, each refused half split again: 1 + 2 per level of 8 → 4 → 2 → 1.
  assert.deepEqual(
    reads.map((read) => read.join('')),
    ['abcde\u0000fgh', 'abcd', 'e\u0000fgh', 'e\u0000f', 'e\u0000', 'f', 'gh'],
  );
});

test('an error that is not a refusal of values is thrown as it came, and without a predicate every error is', async () => {
  const away = new ConnectorError('unavailable', 'the database cannot be reached');
  await assert.rejects(
    MatchIndex.load(
      target(() => away).connection,
      'Thing',
      equalities,
      codes.map((code) => [code]),
      undefined,
      isRecordRejection,
    ),
    (error) => error === away,
  );
  const { connection, reads } = target(refusedValue);
  await assert.rejects(
    MatchIndex.load(
      connection,
      'Thing',
      equalities,
      codes.map((code) => [code]),
      undefined,
    ),
    { code: 'invalid-value' },
  );
  assert.equal(reads.length, 1);
});
