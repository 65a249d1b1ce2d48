/**
 * The rows of JSON and NDJSON files.
 *
 * NDJSON is streamed line by line — the bytes decoded in the file's encoding, each line parsed on
 * its own — so memory holds a batch and one line, never the file. A line is at most
 * MAX_LINE_CHARACTERS long; blank lines are passed over; a line that is not a JSON object is a
 * ConnectorError naming the file and line.
 *
 * A JSON file is one array of records and is parsed whole: no maintained streaming JSON parser is
 * among the project's dependencies, and records of an array rarely come by the gigabyte (those
 * belong in NDJSON). Its size is checked before a byte is read: over the System's maxJsonSize it
 * is refused as too large, naming the setting.
 */
import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { formatSize } from '../../definitions/size.js';
import { ConnectorError } from '../connector-error.js';
import type { FileEncoding } from './encodings.js';
import { fileError, ioError, malformed, type Place } from './file-errors.js';
import type { JsonRow } from './row-layout.js';

/** Longest NDJSON line (characters). */
export const MAX_LINE_CHARACTERS = 16 * 1024 * 1024;

const CHUNK_BYTES = 256 * 1024;

function isRecord(value: unknown): value is JsonRow {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
    value = JSON.parse(text);
  } catch {
    throw malformed(place, 'not valid JSON');
  }
  if (!isRecord(value))
    throw malformed(place, `expected a JSON object (a record), got ${Array.isArray(value) ? 'an array' : typeof value}`);
  return value;
}

/** Streams the records of an open NDJSON file in batches; the handle is closed when they end or are left. */
export async function* ndjsonRows(handle: FileHandle, encoding: FileEncoding, place: Place, batchSize: number): AsyncGenerator<JsonRow[]> {
  const decoder = new StringDecoder(encoding);
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let rest = '';
  let line = 0;
  let batch: JsonRow[] = [];
  let position = 0;
  const take = (text: string): void => {
    line += 1;
    const content = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (content.trim() !== '') batch.push(parseLine(content, { ...place, line }));
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
      let text = bytesRead === 0 ? rest + decoder.end() : rest + decoder.write(buffer.subarray(0, bytesRead));
      if (position === bytesRead && text.startsWith('\uFEFF')) text = text.slice(1);
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        take(text.slice(start, end));
        start = end + 1;
      }
      rest = text.slice(start);
      if (rest.length > MAX_LINE_CHARACTERS) {
        throw fileError('too-large', { ...place, line: line + 1 }, `a line is longer than ${MAX_LINE_CHARACTERS} characters`);
      }
      if (bytesRead === 0) {
        if (rest !== '') take(rest);
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
export async function jsonRows(handle: FileHandle, encoding: FileEncoding, place: Place, maxBytes: number): Promise<JsonRow[]> {
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
    value = JSON.parse(text);
  } catch (error) {
    const line = lineOfParseError(error, text);
    throw malformed(line === undefined ? place : { ...place, line }, 'not valid JSON');
  }
  if (!Array.isArray(value)) throw malformed(place, 'expected a JSON array of records');
  const index = value.findIndex((element) => !isRecord(element));
  if (index >= 0) throw malformed(place, `element ${index + 1} of the array is not a JSON object (a record)`);
  return value as JsonRow[];
}
