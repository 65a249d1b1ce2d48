/**
 * The text encodings of files: those Node's Buffer both decodes and encodes, so that what is read
 * can be written back unchanged. Each has its spellings as definitions may write them, the byte
 * order mark a file in it may start with, and the characters it can hold — a write of a value it
 * cannot hold is refused, never silently turned into other characters (Buffer would drop the high
 * bits of a character latin1 lacks).
 */
export type FileEncoding = 'utf8' | 'utf16le' | 'latin1' | 'ascii';

const spellings: Readonly<Record<string, FileEncoding>> = Object.freeze({
  utf8: 'utf8',
  'utf-8': 'utf8',
  utf16le: 'utf16le',
  'utf-16le': 'utf16le',
  latin1: 'latin1',
  'iso-8859-1': 'latin1',
  ascii: 'ascii',
});

/** Every spelling the schema accepts. */
export const encodingNames: readonly string[] = Object.freeze(Object.keys(spellings));

/** The encoding a (schema-checked) spelling names. */
export function encodingNamed(name: string): FileEncoding {
  const encoding = spellings[name.toLowerCase()];
  if (encoding === undefined) throw new Error(`unknown encoding '${name}'; known: ${encodingNames.join(', ')}`);
  return encoding;
}

/** The byte order mark of an encoding that has one. */
export function byteOrderMark(encoding: FileEncoding): Buffer | undefined {
  if (encoding === 'utf8') return Buffer.from([0xef, 0xbb, 0xbf]);
  if (encoding === 'utf16le') return Buffer.from([0xff, 0xfe]);
  return undefined;
}

/** Whether `bytes` (the start of a file) begin with the encoding's byte order mark. */
export function startsWithMark(bytes: Buffer, encoding: FileEncoding): boolean {
  const mark = byteOrderMark(encoding);
  return mark !== undefined && bytes.length >= mark.length && bytes.subarray(0, mark.length).equals(mark);
}

/** The highest UTF-16 code unit each encoding holds. */
const HIGHEST: Readonly<Record<FileEncoding, number>> = Object.freeze({ utf8: 0xffff, utf16le: 0xffff, latin1: 0xff, ascii: 0x7f });

/** Whether every character of `text` can be written in `encoding`. */
export function canEncode(text: string, encoding: FileEncoding): boolean {
  const highest = HIGHEST[encoding];
  if (highest === 0xffff) return true;
  for (let at = 0; at < text.length; at++) if (text.charCodeAt(at) > highest) return false;
  return true;
}
