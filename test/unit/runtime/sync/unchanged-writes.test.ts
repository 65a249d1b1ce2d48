/**
 * skipUnchanged: the writer it wraps keeps telling whether its writes look their matches up
 * themselves, so a run under the default match rules still writes a page before searching it
 * (match-on-write.ts) once earlier pages matched nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ObjectDescription } from '../../../../connectors/connection.js';
import { matchesOnWrite } from '../../../../runtime/sync/match-on-write.js';
import type { RunWriter } from '../../../../runtime/sync/run-writer.js';
import { skipUnchanged } from '../../../../runtime/sync/unchanged-writes.js';
import type { SyncDefinition } from '../../../../definitions/types.js';

const contact: ObjectDescription = {
  name: 'Contact',
  key: ['ContactNumber'],
  fields: [
    { name: 'ContactNumber', type: 'String', required: true, readOnly: false },
    { name: 'FullName', type: 'String', required: false, readOnly: false },
  ],
  groups: [],
};

const defaultRules = {
  match: { where: 'ContactNumber = #ContactNumber#', onNoMatch: 'create', onMatch: 'update', onMultipleMatches: 'fail' },
} as unknown as SyncDefinition;

test('a writer that finds its own matches still does once unchanged writes are left out', () => {
  const finding: RunWriter = { findsMatches: true, write: async () => [] };
  const wrapped = skipUnchanged(finding, contact);
  assert.equal(wrapped.findsMatches, true);
  assert.equal(matchesOnWrite(defaultRules, wrapped), true);
});

test('a writer that does not find its own matches is not said to', () => {
  const plain: RunWriter = { write: async () => [] };
  assert.equal(matchesOnWrite(defaultRules, skipUnchanged(plain, contact)), false);
});
