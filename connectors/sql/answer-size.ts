/**
 * How much one answer of a database may bring into the process before it is refused.
 *
 * The drivers build a row's values as JavaScript strings and Buffers, whole, before any check of
 * ours sees them. A value longer than a string can be (V8's limit is about 512 million characters)
 * does not fail the statement there: in pg it throws inside the socket's data handler and kills
 * the process; in node-sqlite3 the row silently goes missing and the pending exception surfaces on
 * another connection's next call. And a value short of that limit can still fill the memory when a
 * batch of rows holds many of them.
 *
 * So each engine stops an answer at its source:
 * - SQLite: `SQLITE_LIMIT_LENGTH` on every System connection (sqlite.ts): a longer value fails
 *   with SQLITE_TOOBIG inside SQLite, before it reaches the driver.
 * - PostgreSQL and MariaDB/MySQL: the messages of the connection are measured as they arrive
 *   (engines/answer-guard.ts): a longer row, or a free query's batch of rows over twice its limit,
 *   ends the connection before the driver has buffered it. (MariaDB's own `max_allowed_packet`,
 *   16 MiB by default, answers a longer function result as NULL; servers often raise it.)
 *
 * Free queries get the tighter bound of their System's limits.queryBytes: one value (SQLite) or
 * row (PostgreSQL) that long cannot be part of an answer within the limit.
 */
import type { SystemLimits } from '../../definitions/system-limits.js';

/** The most one value (SQLite) or one row (PostgreSQL) may hold: half of what a JavaScript string can. */
export const MAX_ROW_BYTES = 256 * 1024 * 1024;

/** As a person reads it, for messages. */
export const MAX_ROW_BYTES_TEXT = '256 MiB';

/**
 * The most the wire text of a batch of a free query's rows may hold: a row's text is at most about
 * twice its JSON (bytea travels as two hex digits a byte, its JSON as base64), so more than that
 * is an answer over limits.queryBytes; the 64 KiB spare a tiny limit's framing.
 */
export function queryWireBytes(limits: SystemLimits): number {
  return 2 * limits.queryBytes + 64 * 1024;
}

/** The most one value of a free query may hold on SQLite, which measures the value itself. */
export function queryValueBytes(limits: SystemLimits): number {
  return Math.min(MAX_ROW_BYTES, limits.queryBytes);
}

/**
 * An answer stopped on its way in: one row over its limit (`row`), or the rows of one batch of a
 * free query over the wire limit of its whole answer (`batch`). database-errors.ts turns it into
 * the ConnectorError a caller reads.
 */
export class AnswerTooLarge extends Error {
  constructor(
    readonly over: 'row' | 'batch',
    readonly limitBytes: number,
  ) {
    super(over === 'row' ? `a row of more than ${limitBytes} bytes` : `a batch of rows of more than ${limitBytes} bytes`);
    this.name = 'AnswerTooLarge';
  }
}
