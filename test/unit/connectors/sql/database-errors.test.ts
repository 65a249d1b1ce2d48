/** How driver errors are classified: what the caller is told, and that driver text stays out of it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { AnswerTooLarge, MAX_ROW_BYTES } from '../../../../connectors/sql/answer-size.js';
import { toConnectorError } from '../../../../connectors/sql/database-errors.js';
import { systemLimits } from '../../../../definitions/system-limits.js';

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const query = { systemId: 'shop', action: 'running a query', statement: true } as const;

test("a free query with $1 (PostgreSQL protocol violation 08P01) is the caller's mistake, not an unreachable database", () => {
  const error = toConnectorError(pgError('08P01', 'bind message supplies 0 parameters, but prepared statement "" requires 1'), query);
  assert.ok(error instanceof ConnectorError);
  assert.equal(error.code, 'rejected');
  assert.match(error.message, /parameter/);
  assert.doesNotMatch(error.message, /bind message|prepared statement|cannot be reached/);
});

test('a dropped connection is still unavailable', () => {
  const error = toConnectorError(pgError('08006', 'connection failure'), query);
  assert.ok(error instanceof ConnectorError);
  assert.equal(error.code, 'unavailable');
});

test('division by zero in a free query says so instead of blaming a value that does not fit', () => {
  const error = toConnectorError(pgError('22012', 'division by zero'), query);
  assert.ok(error instanceof ConnectorError);
  assert.equal(error.code, 'rejected');
  assert.match(error.message, /divides by zero/);
});

test('PostgreSQL refusing NUL (U+0000), in text or in jsonb, is said as such; other bytes it refuses stay a value that does not fit', () => {
  const reading = { systemId: 'shop', action: 'reading Customer' };
  const text = toConnectorError(pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'), reading);
  const json = toConnectorError(
    Object.assign(pgError('22P05', 'unsupported Unicode escape sequence'), { detail: '\\u0000 cannot be converted to text.' }),
    reading,
  );
  for (const error of [text, json]) {
    assert.ok(error instanceof ConnectorError);
    assert.equal(error.code, 'invalid-value');
    assert.match(
      error.message,
      /^system 'shop': a text value holds the NUL character \(U\+0000\), which PostgreSQL cannot store or compare, while reading Customer/,
    );
    assert.doesNotMatch(error.message, /0x00|escape sequence/);
  }
  const other = toConnectorError(pgError('22021', 'invalid byte sequence for encoding "UTF8": 0xc3 0x28'), reading);
  assert.ok(other instanceof ConnectorError);
  assert.equal(other.code, 'invalid-value');
  assert.doesNotMatch(other.message, /NUL/);
});

const defaultLimits = systemLimits({ kind: 'System', id: 'shop', connector: 'sql', connection: {} } as never);

test('a value over the length limit while reading is too large to read; while writing it is a value that does not fit', () => {
  const limits = defaultLimits;
  const toobig = () => Object.assign(new Error('SQLITE_TOOBIG: string or blob too big'), { code: 'SQLITE_TOOBIG' });
  const reading = toConnectorError(toobig(), { systemId: 'shop', action: 'reading Customer', limits, reads: true });
  assert.ok(reading instanceof ConnectorError);
  assert.equal(reading.code, 'too-large');
  assert.match(
    reading.message,
    /^system 'shop': stopped reading Customer at a value of more than 256 MiB, the most Syncline reads in one value/,
  );
  const querying = toConnectorError(toobig(), { ...query, limits, reads: true });
  assert.match((querying as ConnectorError).message, /at a value of more than 32 MiB, over limits\.queryBytes \(32 MiB\)/);
  assert.equal((querying as ConnectorError).details?.oneRow, true);
  const writing = toConnectorError(toobig(), { systemId: 'shop', action: 'writing Customer' });
  assert.equal((writing as ConnectorError).code, 'invalid-value');
});

test('a row the answer guard stopped names the bound it was over; a batch is an answer over limits.queryBytes', () => {
  const limits = defaultLimits;
  const row = toConnectorError(new AnswerTooLarge('row', 64 * 1024 * 1024), { ...query, limits, reads: true }) as ConnectorError;
  assert.match(row.message, /at a row of more than 32 MiB, over limits\.queryBytes/);
  const anyRow = toConnectorError(new AnswerTooLarge('row', MAX_ROW_BYTES), {
    systemId: 'shop',
    action: 'reading Customer',
    limits,
    reads: true,
  });
  assert.match(anyRow.message, /at a row of more than 256 MiB, the most Syncline reads in one row/);
  const batch = toConnectorError(new AnswerTooLarge('batch', 64 * 1024 * 1024), { ...query, limits, reads: true }) as ConnectorError;
  assert.match(batch.message, /the query answers more than 32 MiB of rows, over limits\.queryBytes/);
  assert.equal(batch.details?.oneRow, undefined);
});
