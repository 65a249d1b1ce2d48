/**
 * The rows of JSON and NDJSON files.
 *
 * NDJSON is streamed line by line — the bytes decoded in the file's encoding, each line parsed on
 * its own — so memory holds a batch and one line, never the file. A line is at most
 * MAX_LINE_BYTES long; blank lines are passed over; a line that is not a JSON object is a
 * ConnectorError naming the file and line.
 *
 * A JSON file is one array of records and is parsed whole: no maintained streaming JSON parser is
 * among the project's dependencies, and records of an array rarely come by the gigabyte (those
 * belong in NDJSON). Its size is checked before a byte is read: over the System's maxJsonSize it
 * is refused as too large, naming the setting.
 *
 * A whole number past 2^53 in a row is a JsonNumberText (exact-json.ts parseMarkedJson): the
 * layout reads it as its digits, and a rewritten row writes it back as the number it was.
 */
import type { FileHandle } from 'node:fs/promises';
import { formatSize } from '../../definitions/size.js';
import { ConnectorError } from '../connector-error.js';
import { parseMarkedJson } from '../records/exact-json.js';
import { JsonNumberText } from '../records/json-number-text.js';
import type { FileEncoding } from './encodings.js';
import { fileError, ioError, malformed, type Place } from './file-errors.js';
import type { JsonRow } from './row-layout.js';
import { arrayElementTexts, type RowOrigins } from './row-origins.js';

/** Longest NDJSON line (bytes). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 256 * 1024;

function isRecord(value: unknown): value is JsonRow {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumberText);
}

/** JSON.parse's message quotes the text, so only the position it names (when it names one) is kept, as a line. */
function lineOfParseError(error: unknown, text: string): number | undefined {
  const position = /at position (\d+)/.exec(String((error as Error).message))?.[1];
  if (position === undefined) return undefined;
  let line = 1;
  const end = Math.min(Number(position), text.length);
  for (let at = text.indexOf('\n'); at !== -1 && at < end; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

function parseLine(text: string, place: Place): JsonRow {
  let value: unknown;
  try {
    value = parseMarkedJson(text);
  } catch {
    throw malformed(place, 'not valid JSON');
  }
  if (!isRecord(value))
    throw malformed(
      place,
      `expected a JSON object (a record), got ${Array.isArray(value) ? 'an array' : value instanceof JsonNumberText ? 'number' : typeof value}`,
    );
  return value;
}

/**
 * Streams the records of an open NDJSON file in batches; the handle is closed when they end or are
 * left. Lines are split on the bytes of the file (a line feed, in UTF-16LE the code unit at an even
 * offset), so each record's range of bytes is known to `origins`, and a line is decoded whole.
 */
export async function* ndjsonRows(
  handle: FileHandle,
  encoding: FileEncoding,
  place: Place,
  batchSize: number,
  origins?: RowOrigins,
): AsyncGenerator<JsonRow[]> {
  const newline = Buffer.from('\n', encoding);
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  // The bytes of the line not yet ended, from `restStart` in the file; a row's range starts at `from`.
  let rest = Buffer.alloc(0);
  let restStart = 0;
  let from = 0;
  let line = 0;
  let batch: JsonRow[] = [];
  let position = 0;
  const take = (bytes: Buffer, end: number): void => {
    line += 1;
    let text = bytes.toString(encoding);
    if (line === 1 && text.startsWith('\uFEFF')) {
      text = text.slice(1);
      from = Buffer.from('\uFEFF', encoding).length;
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    const row = parseLine(text, { ...place, line });
    origins?.set(row, { start: from, end });
    from = end;
    batch.push(row);
  };
  try {
    for (;;) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position));
      } catch (error) {
        throw ioError(place, 'reading the file', error);
      }
      position += bytesRead;
      const bytes = rest.length === 0 ? buffer.subarray(0, bytesRead) : Buffer.concat([rest, buffer.subarray(0, bytesRead)]);
      let start = 0;
      for (let end = bytes.indexOf(newline, start); end !== -1; end = bytes.indexOf(newline, end + 1)) {
        // In UTF-16LE a 0x0A byte at an odd offset is half of another character.
        if ((end - start) % newline.length !== 0) continue;
        take(bytes.subarray(start, end), restStart + end + newline.length);
        start = end + newline.length;
      }
      // Copied: the read buffer is reused for the next chunk.
      rest = Buffer.from(bytes.subarray(start));
      restStart += start;
      if (rest.length > MAX_LINE_BYTES) {
        throw fileError('too-large', { ...place, line: line + 1 }, `a line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB`);
      }
      if (bytesRead === 0) {
        if (rest.length > 0) take(rest, restStart + rest.length);
        if (batch.length > 0) yield batch;
        return;
      }
      while (batch.length >= batchSize) {
        const full = batch.slice(0, batchSize);
        batch = batch.slice(batchSize);
        yield full;
      }
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The records of an open JSON file (an array of them), refused past `maxBytes`; the handle is closed. */
export async function jsonRows(
  handle: FileHandle,
  encoding: FileEncoding,
  place: Place,
  maxBytes: number,
  origins?: RowOrigins,
): Promise<JsonRow[]> {
  let text: string;
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) {
      throw fileError(
        'too-large',
        place,
        `the JSON file has ${formatSize(size)}, more than the ${formatSize(maxBytes)} of connection.maxJsonSize (a JSON array is read whole); raise maxJsonSize, or keep such records in NDJSON, which is streamed`,
      );
    }
    text = (await handle.readFile()).toString(encoding);
  } catch (error) {
    throw error instanceof ConnectorError ? error : ioError(place, 'reading the file', error);
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  if (text.trim() === '') return [];
  let value: unknown;
  try {
    value = parseMarkedJson(text);
  } catch (error) {
    const line = lineOfParseError(error, text);
    throw malformed(line === undefined ? place : { ...place, line }, 'not valid JSON');
  }
  if (!Array.isArray(value)) throw malformed(place, 'expected a JSON array of records');
  const index = value.findIndex((element) => !isRecord(element));
  if (index >= 0) throw malformed(place, `element ${index + 1} of the array is not a JSON object (a record)`);
  if (origins !== undefined) {
    const texts = arrayElementTexts(text);
    for (const [at, row] of value.entries()) origins.set(row, { text: texts[at]! });
  }
  return value as JsonRow[];
}
