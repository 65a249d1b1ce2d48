/**
 * The rows of a CSV file, streamed: the bytes go through csv-parse (in the file's encoding, any
 * byte order mark dropped, blank lines passed over) and come out as arrays of cells in batches, so
 * a file of any size is read in the memory of a batch. The header line, when the file has one,
 * is taken first and names the columns.
 *
 * A line that is not CSV — an unclosed quote, more or fewer cells than the header — is a
 * ConnectorError naming the file and the line, with csv-parse's code but never its message (which
 * quotes the cell).
 */
import type { FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream';
import { CsvError, parse, type Options } from 'csv-parse';
import { ConnectorError } from '../connector-error.js';
import { fileError, ioError, malformed, type Place } from './file-errors.js';
import type { FileOptions } from './file-object.js';
import type { Cells } from './row-layout.js';
import type { RowOrigins } from './row-origins.js';
import { streamBatches } from './stream-batches.js';

/** Longest record csv-parse assembles (characters): a quote left open ends here, not in memory. */
export const MAX_RECORD_CHARACTERS = 16 * 1024 * 1024;

/** Bytes read from disk at a time. */
const CHUNK_BYTES = 256 * 1024;

export interface CsvRows {
  /** The header line's names, or the object's `columns`; undefined for an empty file with a header. */
  columns: string[] | undefined;
  batches: AsyncGenerator<Cells[]>;
  /** Ends the read and closes the file, whether the batches were read or not. */
  close(): Promise<void>;
}

/**
 * Which cells of a record were quoted in its raw text. csv-parse writes a quoted cell as the quote,
 * the value with each quote doubled, and the quote; an unquoted cell as its value (no trimming is
 * asked for, and a quote inside an unquoted cell is an error): so the raw text is walked cell by
 * cell by their lengths alone, never parsed again.
 */
export function quotedCells(raw: string, record: readonly string[], delimiter: string, quote: string): boolean[] {
  const quoted: boolean[] = [];
  let at = raw.charCodeAt(0) === 0xfeff ? 1 : 0;
  // The raw text of a record after blank lines starts with their line ends (csv-parse keeps them
  // there, and a part of a CRLF before the record's own); the first cell starts after them.
  while (at < raw.length && (raw[at] === '\n' || raw[at] === '\r')) at += 1;
  for (const value of record) {
    const isQuoted = raw.startsWith(quote, at);
    quoted.push(isQuoted);
    if (isQuoted) at += 2 * quote.length + value.length + value.split(quote).length - 1;
    else at += value.length;
    at += delimiter.length;
  }
  return quoted;
}

/**
 * The cells of a parsed record with its empty unquoted cells made null. csv-parse tells quoting
 * only to a cast function, which costs ten times the parse when called for every cell; so records
 * come with their raw text, and only in one that has an empty cell and a pair of quotes (rare) is
 * the raw text walked to tell "" from nothing.
 */
export function cellsOf(parsed: { raw: string; record: string[] }, delimiter: string, quote: string): Cells {
  const cells: Cells = parsed.record;
  if (!cells.includes('')) return cells;
  // The record's array is this reader's own: its empty cells become null in place.
  const quoted = parsed.raw.includes(quote + quote) ? quotedCells(parsed.raw, parsed.record, delimiter, quote) : undefined;
  for (let at = 0; at < cells.length; at++) if (cells[at] === '' && quoted?.[at] !== true) cells[at] = null;
  return cells;
}

const PROBLEMS: Readonly<Record<string, string>> = Object.freeze({
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the line has a different number of cells than the header',
  CSV_RECORD_INCONSISTENT_COLUMNS: 'the line has a different number of cells than the header',
  CSV_QUOTE_NOT_CLOSED: 'a quoted cell is not closed before the end of the file',
  CSV_INVALID_CLOSING_QUOTE: 'a quote appears inside an unquoted cell, or text follows a closing quote',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'text follows a closing quote',
  CSV_MAX_RECORD_SIZE: `a record is longer than ${MAX_RECORD_CHARACTERS / 1024 / 1024} Mi characters (a quote left open?)`,
});

/** What a csv-parse or stream failure is, as the caller is told. */
export function csvFailure(error: unknown, place: Place): ConnectorError {
  if (error instanceof ConnectorError) return error;
  if (error instanceof CsvError) {
    const line = (error as CsvError & { lines?: number }).lines;
    // csv-parse's message and record quote the file: neither goes along, not even as cause.
    return malformed({ ...place, ...(typeof line === 'number' ? { line } : {}) }, `not valid CSV: ${PROBLEMS[error.code] ?? error.code}`);
  }
  return ioError(place, 'reading the file', error);
}

/**
 * Streams the rows of an open CSV file (the caller's handle, closed with the stream). The batches
 * hold data rows only.
 */
export async function csvRows(
  handle: FileHandle,
  options: FileOptions,
  place: Place,
  batchSize: number,
  keep?: { origins: RowOrigins; markBytes: number },
): Promise<CsvRows> {
  const settings: Options = {
    delimiter: options.csv.delimiter,
    quote: options.csv.quote,
    escape: options.csv.quote,
    encoding: options.encoding,
    bom: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_CHARACTERS,
  };
  // info.bytes is where a record ends in the file's bytes: what a rewrite needs to copy it.
  const parser = parse({ ...settings, raw: true, ...(keep === undefined ? {} : { info: true }) });
  const bytes = handle.createReadStream({ start: 0, highWaterMark: CHUNK_BYTES, autoClose: true });
  // The file's read errors reach the parser, which the reader listens to.
  pipeline(bytes, parser, () => undefined);
  const parsed = streamBatches<{ raw: string; record: string[]; info?: { bytes: number } }>(parser, batchSize);
  // The byte order mark is the file's, written apart on a rewrite: the first record starts after it.
  let from = keep?.markBytes ?? 0;
  const cells = (record: { raw: string; record: string[]; info?: { bytes: number } }): Cells => {
    const row = cellsOf(record, options.csv.delimiter, options.csv.quote);
    if (keep !== undefined && record.info !== undefined) {
      keep.origins.set(row, { start: from, end: record.info.bytes });
      from = record.info.bytes;
    }
    return row;
  };
  async function* cellBatches(): AsyncGenerator<Cells[]> {
    try {
      for await (const batch of parsed) yield batch.map(cells);
    } finally {
      await parsed.return(undefined);
    }
  }
  const source = cellBatches();
  let first: Cells[] = [];
  let columns = options.csv.columns === undefined ? undefined : [...options.csv.columns];
  try {
    const next = await source.next();
    first = next.done ? [] : next.value;
  } catch (error) {
    await source.return(undefined);
    throw csvFailure(error, place);
  }
  if (options.csv.header) {
    const header = first.shift();
    columns = header?.map((name) => name ?? '');
  } else if (columns !== undefined && first[0] !== undefined && first[0].length !== columns.length) {
    await source.return(undefined);
    throw malformed(
      { ...place, line: 1 },
      `not valid CSV: the line has ${first[0].length} cells, and the object names ${columns.length} columns`,
    );
  }
  async function* batches(): AsyncGenerator<Cells[]> {
    try {
      if (first.length > 0) yield first;
      first = [];
      for (;;) {
        let next: IteratorResult<Cells[]>;
        try {
          next = await source.next();
        } catch (error) {
          throw csvFailure(error, place);
        }
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await source.return(undefined);
    }
  }
  return {
    columns,
    batches: batches(),
    close: async () => {
      await source.return(undefined);
      await parsed.return(undefined);
    },
  };
}

/** The refusal of a CSV file whose header line has no column for a key field. */
export function keyColumnMissing(place: Place, field: string, columns: readonly string[], delimiter: string): ConnectorError {
  return fileError(
    'definition-mismatch',
    place,
    `the header line has no column '${field}' for the key (it has ${columns.length} column${columns.length === 1 ? '' : 's'} split at '${delimiter === '\t' ? '\\t' : delimiter}'; is the delimiter right?)`,
  );
}
