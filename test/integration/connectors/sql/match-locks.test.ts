/**
 * The match locks' keys (connectors/sql/match-locks.ts), without a database: any two match values
 * that can find each other's record share a lock, whatever their spelling (7, '7', '7.0'; true and
 * '1'; a date and its midnight), so two writers of one record always take turns; buckets are few,
 * stable and independent of the order of the match fields.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { lockToken, matchBucket, MATCH_LOCK_BUCKETS, sessionLockName } from '../../../../connectors/sql/match-locks.js';
import { matchesValue } from '../../../../connectors/sql/match-values.js';
import type { SqlObject } from '../../../../connectors/sql/object-model.js';
import type { Dialect } from '../../../../connectors/sql/sql-dialect.js';
import { engines } from '../../../../connectors/sql/engines/index.js';
import { decodeValue } from '../../../../connectors/records/field-values.js';
import { encodeValue } from '../../../../connectors/sql/value-codec.js';
import type { FieldType } from '../../../../definitions/types.js';

const TYPES: readonly FieldType[] = ['String', 'Integer', 'Number', 'Boolean', 'Date', 'DateTime'];
const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres', 'mysql'];

/** Spellings that equal each other under some type, and near misses. */
const TRICKY: readonly unknown[] = [
  0,
  1,
  -0,
  7,
  7.5,
  -3,
  1e21,
  12345678901234567890n,
  7n,
  '7',
  ' 7 ',
  '7.0',
  '07',
  '+7',
  '1e1',
  '10',
  '0',
  '1',
  '-0',
  '7.5',
  '',
  ' ',
  'true',
  'TRUE',
  ' false ',
  'False',
  'yes',
  true,
  false,
  'abc',
  'ABC',
  'abc ',
  'Ada',
  'ada@example.com',
  '2024-01-05',
  '2024-01-05T00:00:00Z',
  '2024-01-05T00:00:00.000Z',
  '2024-01-05T10:00:00+02:00',
  '2024-01-05T08:00:00.000Z',
  '2024-01-06',
  new Date('2024-01-05T00:00:00Z'),
  new Date('2024-01-05T08:00:00Z'),
];

const value = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.integer({ min: -20, max: 20 }),
  fc.double({ noNaN: true, min: -100, max: 100 }),
  fc.string({ maxLength: 4 }),
  fc.boolean(),
);

/** What a create with match value `raw` stores, as the connector reads it back; undefined when it cannot be stored. */
function stored(type: FieldType, raw: unknown, dialect: Dialect): unknown {
  try {
    return decodeValue(type, encodeValue(type, raw, { engine: engines[dialect], label: 'T.f' }));
  } catch (error) {
    if (error instanceof ConnectorError) return undefined;
    throw error;
  }
}

function objectWith(fields: Record<string, FieldType>): SqlObject {
  return {
    name: 'T',
    systemId: 's',
    table: 't',
    key: ['id'],
    fields: new Map(Object.entries(fields).map(([name, type]) => [name, { name, type, required: false, readOnly: false }])),
    groups: new Map(),
    readOnly: false,
  };
}

describe('lockToken', () => {
  for (const type of TYPES) {
    it(`${type}: a value that finds what another one creates has the same token`, () => {
      fc.assert(
        fc.property(value, value, fc.constantFrom(...DIALECTS), (created, searched, dialect) => {
          const record = stored(type, created, dialect);
          // The connector refuses to compare a String field with a date (compare-column.ts).
          if (type === 'String' && searched instanceof Date) return;
          if (record === undefined || !matchesValue(record, searched)) return;
          assert.equal(
            lockToken(type, searched),
            lockToken(type, created),
            `${type} ${String(created)} stored as ${String(record)} is found by ${String(searched)}`,
          );
        }),
        { numRuns: 3000 },
      );
    });
  }

  it('text that a case-, accent- or trailing-blank-insensitive collation equates shares a token', () => {
    assert.equal(lockToken('String', 'abc'), lockToken('String', 'ABC'));
    assert.equal(lockToken('String', 'abc'), lockToken('String', 'abc '));
    assert.equal(lockToken('String', 'Müller'), lockToken('String', 'muller'));
  });

  it('tells apart what cannot match: other text, other numbers, other instants, null', () => {
    assert.notEqual(lockToken('String', 'abc'), lockToken('String', 'abd'));
    assert.notEqual(lockToken('String', 'abc'), lockToken('String', ' abc'));
    assert.notEqual(lockToken('Integer', 7), lockToken('Integer', 8));
    assert.notEqual(lockToken('DateTime', '2024-01-05T00:00:00Z'), lockToken('DateTime', '2024-01-05T00:00:01Z'));
    assert.notEqual(lockToken('String', null), lockToken('String', 'null'));
    assert.equal(lockToken('String', null), lockToken('String', undefined));
  });
});

describe('matchBucket', () => {
  const object = objectWith({ ext: 'String', tenant: 'Integer', day: 'Date' });

  it('is the same for equal match values, whatever their spelling and field order', () => {
    assert.equal(matchBucket(object, { tenant: 7, ext: 'A-1' }), matchBucket(object, { ext: 'A-1', tenant: '7.0' }));
    assert.equal(matchBucket(object, { day: '2024-01-05' }), matchBucket(object, { day: new Date('2024-01-05T00:00:00Z') }));
  });

  it('depends on the fields matched on, not only on the values', () => {
    const samples = Array.from({ length: 50 }, (_, n) => [matchBucket(object, { ext: String(n) }), matchBucket(object, { tenant: n })]);
    assert.ok(samples.some(([byExt, byTenant]) => byExt !== byTenant));
  });

  it(`spreads keys over at most ${MATCH_LOCK_BUCKETS} buckets, so a page of 1,000 takes a few hundred locks`, () => {
    const buckets = new Set(Array.from({ length: 1000 }, (_, n) => matchBucket(object, { ext: `P-${String(n).padStart(6, '0')}` })));
    assert.ok(buckets.size <= MATCH_LOCK_BUCKETS);
    assert.ok(buckets.size > MATCH_LOCK_BUCKETS * 0.9, `1,000 keys fill most buckets (${buckets.size})`);
    for (const bucket of buckets) assert.ok(Number.isInteger(bucket) && bucket >= 0 && bucket < MATCH_LOCK_BUCKETS);
  });

  it('is stable across processes: a fixed key has a fixed bucket', () => {
    // A hash seeded per process would let two processes lock different buckets for one record.
    assert.equal(matchBucket(object, { ext: 'A-1' }), matchBucket(objectWith({ ext: 'String' }), { ext: 'A-1' }));
    assert.equal(matchBucket(object, { ext: 'A-1' }), 176);
  });
});

describe('sessionLockName', () => {
  it('fits GET_LOCK (64 characters) for any table, and differs per table and bucket', () => {
    const long = sessionLockName(`${'schema'.repeat(20)}.${'table'.repeat(40)}`, MATCH_LOCK_BUCKETS - 1);
    assert.ok(long.length <= 64, long);
    assert.notEqual(sessionLockName('db.a', 1), sessionLockName('db.b', 1));
    assert.notEqual(sessionLockName('db.a', 1), sessionLockName('db.a', 2));
  });
});
