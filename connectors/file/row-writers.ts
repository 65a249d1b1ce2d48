/**
 * Rows as the text of their format, a batch at a time, in the file's encoding: CSV through
 * csv-stringify (the object's delimiter and quote, a quote inside doubled, exactly the empty
 * strings quoted so that they read back as empty strings and empty cells as null), JSON as an array
 * with one record per line, NDJSON as one record per line; rows a rewrite leaves alone as they
 * were. The caller writes the bytes.
 */
import { stringify } from 'csv-stringify/sync';
import { byteOrderMark } from './encodings.js';
import type { FileOptions } from './file-object.js';
import type { Cells, JsonRow } from './row-layout.js';

export interface RowWriter<R> {
  /** The bytes before the first row: a byte order mark, a header line, an opening bracket. */
  start(bom: boolean, columns?: readonly string[]): Buffer;
  rows(rows: readonly R[]): Buffer;
  /** Rows copied as they were (row-origins.ts): their bytes, or the text of a JSON array's element. */
  copied(original: Buffer | string): Buffer;
  end(): Buffer;
}

/**
 * Copied lines as they were, ending with a line end: the last line of a file may have none, and
 * rows may follow it now.
 */
function copiedLines(original: Buffer | string, options: FileOptions): Buffer {
  const bytes = typeof original === 'string' ? Buffer.from(original, options.encoding) : original;
  const newline = Buffer.from('\n', options.encoding);
  const ended = bytes.length >= newline.length && bytes.subarray(bytes.length - newline.length).equals(newline);
  return ended || bytes.length === 0 ? bytes : Buffer.concat([bytes, Buffer.from(options.lineEnding, options.encoding)]);
}

export function csvWriter(options: FileOptions): RowWriter<Cells> {
  const settings = {
    delimiter: options.csv.delimiter,
    quote: options.csv.quote,
    escape: options.csv.quote,
    record_delimiter: options.lineEnding,
    quoted_match: /^$/,
  };
  const encode = (text: string) => Buffer.from(text, options.encoding);
  return {
    start(bom, columns) {
      const mark = bom ? (byteOrderMark(options.encoding) ?? Buffer.alloc(0)) : Buffer.alloc(0);
      const header = options.csv.header && columns !== undefined ? encode(stringify([[...columns]], settings)) : Buffer.alloc(0);
      return Buffer.concat([mark, header]);
    },
    rows: (rows) => (rows.length === 0 ? Buffer.alloc(0) : encode(stringify(rows as Cells[], settings))),
    copied: (original) => copiedLines(original, options),
    end: () => Buffer.alloc(0),
  };
}

/** `text` writes one row (JsonLayout.text: numbers past a double's reach bare, with their digits). */
export function jsonWriter(options: FileOptions, text: (row: JsonRow) => string): RowWriter<JsonRow> {
  const newline = options.lineEnding;
  const encode = (text: string) => Buffer.from(text, options.encoding);
  let first = true;
  return {
    start(bom) {
      first = true;
      const mark = bom ? (byteOrderMark(options.encoding) ?? Buffer.alloc(0)) : Buffer.alloc(0);
      return Buffer.concat([mark, encode('[')]);
    },
    rows(rows) {
      if (rows.length === 0) return Buffer.alloc(0);
      const lines = rows.map(text).join(`,${newline}`);
      const lead = first ? newline : `,${newline}`;
      first = false;
      return encode(lead + lines);
    },
    copied(original) {
      const lead = encode(first ? newline : `,${newline}`);
      first = false;
      return Buffer.concat([lead, typeof original === 'string' ? encode(original) : original]);
    },
    end: () => encode(first ? `]${newline}` : `${newline}]${newline}`),
  };
}

export function ndjsonWriter(options: FileOptions, text: (row: JsonRow) => string): RowWriter<JsonRow> {
  const newline = options.lineEnding;
  const encode = (text: string) => Buffer.from(text, options.encoding);
  return {
    start: (bom) => (bom ? (byteOrderMark(options.encoding) ?? Buffer.alloc(0)) : Buffer.alloc(0)),
    rows: (rows) => encode(rows.map((row) => `${text(row)}${newline}`).join('')),
    copied: (original) => copiedLines(original, options),
    end: () => Buffer.alloc(0),
  };
}
