/**
 * Measures what a database server sends on one connection, message by message, ahead of the
 * driver's own parser (answer-size.ts says why). The drivers buffer a message whole before they
 * decode it, so a message is judged by the length in its header, as soon as the header arrives:
 * one over its limit destroys the connection with AnswerTooLarge. The driver then fails the
 * statement with that error and the pool drops the connection; it has buffered one chunk of the
 * message at most.
 *
 * The guard is attached to an idle connection (after its startup, at the end of a message) and to
 * the stream the driver parses, so it sees plain text under TLS too.
 */
import type { Duplex } from 'node:stream';
import type { SystemLimits } from '../../../definitions/system-limits.js';
import { AnswerTooLarge, MAX_ROW_BYTES, queryWireBytes } from '../answer-size.js';
import type { PoolPurpose } from './engine.js';

/** How a protocol frames its messages, and what it allows of them. */
export interface Framing {
  headerBytes: number;
  /** Judges the message whose header starts at `at`: the length of its body, or why to stop. */
  message(bytes: Buffer, at: number): number | AnswerTooLarge;
}

export interface AnswerLimits {
  /** The most one row may hold. */
  rowBytes: number;
  /** The most the rows of one statement's answer may hold together; unbounded when not given. */
  batchBytes?: number;
}

/** What a System pool's connections may receive: a free query's limits are its own (answer-size.ts). */
export function poolAnswerLimits(purpose: PoolPurpose, limits: SystemLimits): AnswerLimits {
  if (purpose !== 'query') return { rowBytes: MAX_ROW_BYTES };
  const wire = queryWireBytes(limits);
  return { rowBytes: Math.min(MAX_ROW_BYTES, wire), batchBytes: wire };
}

/**
 * PostgreSQL: a type byte, then a 32-bit length that counts itself and the body. Rows are DataRow
 * ('D') messages; ReadyForQuery ('Z') ends one statement's answer, and so a batch.
 */
export function postgresFraming(limits: AnswerLimits): Framing {
  const batchLimit = limits.batchBytes ?? Number.POSITIVE_INFINITY;
  let batch = 0;
  return {
    headerBytes: 5,
    message(bytes, at) {
      const type = bytes[at]!;
      const length = bytes.readUInt32BE(at + 1);
      if (type === 0x5a) batch = 0;
      else if (type === 0x44) {
        batch += length + 1;
        if (length + 1 > limits.rowBytes) return new AnswerTooLarge('row', limits.rowBytes);
        if (batch > batchLimit) return new AnswerTooLarge('batch', batchLimit);
      }
      return length - 4;
    },
  };
}

/** Longest MariaDB/MySQL packet: a longer payload comes as packets this long, then a shorter one. */
const MYSQL_MAX_PACKET = 0xffffff;

/**
 * MariaDB/MySQL: a 24-bit little-endian payload length and a sequence number. Each row is one
 * payload, split into packets when longer than MYSQL_MAX_PACKET. Rows are judged one by one: the
 * session stops taking rows once their JSON is over the limit, so no batch builds up.
 */
export function mysqlFraming(limits: AnswerLimits): Framing {
  let payload = 0;
  return {
    headerBytes: 4,
    message(bytes, at) {
      const length = bytes.readUIntLE(at, 3);
      payload += length;
      if (payload > limits.rowBytes) return new AnswerTooLarge('row', limits.rowBytes);
      if (length < MYSQL_MAX_PACKET) payload = 0;
      return length;
    },
  };
}

/**
 * Guards the stream a connected driver reads (`stream`, found on the driver's internals), or says
 * that this version of the driver keeps none there: then no connection is handed out unmeasured.
 */
export function guardDriverStream(driver: string, stream: Duplex | undefined, framing: Framing): Error | null {
  if (stream === undefined || typeof stream.prependListener !== 'function') {
    return new Error(`this version of ${driver} keeps no stream on its connection, which Syncline measures answers on`);
  }
  guardAnswers(stream, framing);
  return null;
}

export function guardAnswers(stream: Duplex, framing: Framing): void {
  const { headerBytes } = framing;
  const header = Buffer.alloc(headerBytes);
  let headerFilled = 0;
  /** Body bytes of the current message still to come. */
  let bodyLeft = 0;
  let stopped = false;

  // Returns false once the connection is stopped.
  const judge = (bytes: Buffer, at: number): boolean => {
    const verdict = framing.message(bytes, at);
    if (typeof verdict === 'number') {
      bodyLeft = verdict;
      return true;
    }
    stopped = true;
    stream.destroy(verdict);
    return false;
  };

  stream.prependListener('data', (chunk: Buffer) => {
    if (stopped) return;
    let at = 0;
    while (at < chunk.length) {
      if (bodyLeft > 0) {
        const skipped = Math.min(bodyLeft, chunk.length - at);
        bodyLeft -= skipped;
        at += skipped;
      } else if (headerFilled === 0 && chunk.length - at >= headerBytes) {
        // The common case: the whole header in this chunk.
        if (!judge(chunk, at)) return;
        at += headerBytes;
      } else {
        header[headerFilled++] = chunk[at++]!;
        if (headerFilled === headerBytes) {
          headerFilled = 0;
          if (!judge(header, 0)) return;
        }
      }
    }
  });
}
