/**
 * Which runs get a receipt for their source read (and so archive a drop folder's files): only
 * those that read the source object whole, by the sync's own choice — not a WhereClause, an ad-hoc
 * record, nor a where or precondition that reads `#params.…#`, given or not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from '../../../../connectors/connection.js';
import { parseExpression } from '../../../../definitions/expression/index.js';
import type { SyncEntry } from '../../../../definitions/snapshot.js';
import { settleReceipt } from '../../../../runtime/sync/settle-source.js';

const source = { settle: async () => {} } as unknown as Connection;

function sync(where?: string, precondition?: string): SyncEntry {
  return {
    definition: { id: 's', source: { system: 'files', object: 'Order', ...(where === undefined ? {} : { where }) } },
    ...(where === undefined ? {} : { where: parseExpression(where) }),
    ...(precondition === undefined ? {} : { precondition: parseExpression(precondition) }),
  } as unknown as SyncEntry;
}

const params = [{ Name: 'Region', Value: 'EU' }];

test('a run reading the object whole by its own where gets a receipt', () => {
  assert.deepEqual(settleReceipt(source, sync(), { processId: 's' }), { completed: [] });
  // Text that only looks like a placeholder, inside a string, reads no parameter.
  const literal = sync("total > 10 AND note LIKE '%#params.Region#%'");
  assert.deepEqual(settleReceipt(source, literal, { processId: 's', actionParams: params }), { completed: [] });
  assert.deepEqual(settleReceipt(source, sync('total > #limit#'), { processId: 's', actionParams: params }), { completed: [] });
});

test('a where or precondition reading #params.…# gives no receipt, with ActionParams or without', () => {
  for (const start of [{ processId: 's' }, { processId: 's', actionParams: params }, { processId: 's', actionParams: [] }]) {
    assert.equal(settleReceipt(source, sync('region = #params.Region#'), start), undefined, JSON.stringify(start));
    assert.equal(settleReceipt(source, sync(undefined, 'region = #params.Region# OR #params.All# = 1'), start), undefined);
    assert.equal(settleReceipt(source, sync('total > 1', 'NOT (region IN (#params.Region#))'), start), undefined);
  }
});

test('a WhereClause or an ad-hoc record gives no receipt, nor does a connection that cannot settle', () => {
  assert.equal(settleReceipt(source, sync(), { processId: 's', whereClause: "number = '1'" }), undefined);
  assert.equal(settleReceipt(source, sync(), { processId: 's', sourceId: '1' }), undefined);
  assert.equal(settleReceipt({} as Connection, sync(), { processId: 's' }), undefined);
});
