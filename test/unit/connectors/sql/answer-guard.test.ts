/**
 * The guard that measures a server's messages ahead of the driver: it must stop a row over its
 * limit from its header alone, whatever chunks the bytes arrive in, and never stop an answer within
 * the limits.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { AnswerTooLarge } from '../../../../connectors/sql/answer-size.js';
import { guardAnswers, mysqlFraming, postgresFraming, type Framing } from '../../../../connectors/sql/engines/answer-guard.js';

/** A PostgreSQL message: type, length counting itself, body. */
function pgMessage(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const pgRow = (bytes: number) => pgMessage('D', Buffer.alloc(bytes, 0x78));
const pgReady = () => pgMessage('Z', Buffer.from('I'));
const pgComplete = () => pgMessage('C', Buffer.from('SELECT 1\0'));

/** A MariaDB/MySQL packet: 24-bit little-endian length, sequence number, payload. */
function mysqlPacket(length: number, sequence: number, fill = 0x78): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(length, 0, 3);
  header.writeUInt8(sequence % 256, 3);
  return Buffer.concat([header, Buffer.alloc(length, fill)]);
}

/**
 * Feeds `bytes` to a guarded stream in chunks of `chunk` bytes (the last one shorter); returns the
 * bytes the driver's own listener got and the error the guard stopped with, if any.
 */
function feed(framing: Framing, bytes: Buffer, chunk: number): { delivered: number; stopped: unknown } {
  const stream = new PassThrough();
  let delivered = 0;
  stream.on('data', (data: Buffer) => (delivered += data.length));
  // destroy() reports its error on the next tick; `errored` holds it at once.
  stream.on('error', () => undefined);
  guardAnswers(stream, framing);
  for (let at = 0; at < bytes.length && !stream.destroyed; at += chunk) stream.emit('data', bytes.subarray(at, at + chunk));
  return { delivered, stopped: stream.errored ?? undefined };
}

describe('PostgreSQL framing', () => {
  const answer = Buffer.concat([pgRow(100), pgRow(100), pgComplete(), pgReady(), pgRow(100), pgComplete(), pgReady()]);

  for (const chunk of [1, 3, 5, 7, 64, answer.length]) {
    it(`lets an answer within the limits through whole, in chunks of ${chunk} bytes`, () => {
      const result = feed(postgresFraming({ rowBytes: 106, batchBytes: 212 }), answer, chunk);
      assert.equal(result.stopped, undefined);
      assert.equal(result.delivered, answer.length);
    });
  }

  for (const chunk of [1, 2, 4, 16, 4096]) {
    it(`stops a row over rowBytes at its header, in chunks of ${chunk} bytes`, () => {
      const bytes = Buffer.concat([pgRow(10), pgRow(10_000), pgComplete(), pgReady()]);
      const result = feed(postgresFraming({ rowBytes: 1000 }), bytes, chunk);
      assert.ok(result.stopped instanceof AnswerTooLarge);
      assert.equal(result.stopped.over, 'row');
      assert.equal(result.stopped.limitBytes, 1000);
      // The first row, and at most the chunk that brought the big row's header.
      assert.ok(result.delivered <= 15 + 5 + chunk, `delivered ${result.delivered}`);
    });
  }

  it('stops rows adding up to more than batchBytes before the end of their answer', () => {
    const bytes = Buffer.concat([pgRow(100), pgRow(100), pgRow(100), pgComplete(), pgReady()]);
    const result = feed(postgresFraming({ rowBytes: 1000, batchBytes: 250 }), bytes, 64);
    assert.ok(result.stopped instanceof AnswerTooLarge);
    assert.equal(result.stopped.over, 'batch');
  });

  it('counts each batch from the end of the previous answer (ReadyForQuery)', () => {
    const batch = Buffer.concat([pgRow(100), pgRow(100), pgComplete(), pgReady()]);
    const result = feed(postgresFraming({ rowBytes: 1000, batchBytes: 250 }), Buffer.concat([batch, batch, batch]), 50);
    assert.equal(result.stopped, undefined);
  });

  it('judges only rows: another long message (a notice, an error text) passes', () => {
    const bytes = Buffer.concat([pgMessage('N', Buffer.alloc(5000, 0x41)), pgRow(10), pgReady()]);
    assert.equal(feed(postgresFraming({ rowBytes: 100, batchBytes: 100 }), bytes, 333).stopped, undefined);
  });
});

describe('MariaDB/MySQL framing', () => {
  it('lets packets within the limit through, in any chunks', () => {
    const bytes = Buffer.concat([mysqlPacket(1, 1), mysqlPacket(300, 2), mysqlPacket(0, 3), mysqlPacket(7, 4)]);
    for (const chunk of [1, 3, 4, 5, 100, bytes.length]) {
      const result = feed(mysqlFraming({ rowBytes: 300 }), bytes, chunk);
      assert.equal(result.stopped, undefined, `chunks of ${chunk}`);
      assert.equal(result.delivered, bytes.length);
    }
  });

  it('stops a payload over rowBytes at its header', () => {
    const result = feed(mysqlFraming({ rowBytes: 300 }), Buffer.concat([mysqlPacket(10, 1), mysqlPacket(301, 2)]), 7);
    assert.ok(result.stopped instanceof AnswerTooLarge);
    assert.equal(result.stopped.over, 'row');
  });

  it('adds up the packets of one payload split at 16 MiB, and starts again after it', { timeout: 60_000 }, () => {
    const full = 0xffffff;
    const limit = full + 100;
    // One payload of 16 MiB - 1 + 50 bytes: within the limit; then another of 16 MiB - 1 + 200: over it.
    const within = Buffer.concat([mysqlPacket(full, 1), mysqlPacket(50, 2)]);
    assert.equal(feed(mysqlFraming({ rowBytes: limit }), Buffer.concat([within, within]), 65536).stopped, undefined);
    const over = Buffer.concat([within, mysqlPacket(full, 3), mysqlPacket(200, 4)]);
    const result = feed(mysqlFraming({ rowBytes: limit }), over, 65536);
    assert.ok(result.stopped instanceof AnswerTooLarge);
  });
});
