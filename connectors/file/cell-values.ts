/**
 * CSV cells as typed values and back. A cell is text, or null: csv-parse tells a quoted cell from
 * an unquoted one, and an empty unquoted cell (`a,,b`) is null while a quoted empty one (`a,"",b`)
 * is the empty string; writing keeps that distinction (csv-stringify quotes exactly the empty
 * strings). Text becomes the declared type as records/field-values.ts decodes every system's
 * values — a cell that does not fit its type is passed on as the text it is, as every connector
 * passes on what its system holds, so one odd row neither hides nor stops the others (the sync's
 * write of it fails that record alone, naming the field).
 *
 * The common cells take a shortcut with the same answer as decodeValue: a plain whole number of
 * up to 15 digits, or a decimal of up to 15 characters, is read with Number (decodeValue goes
 * through BigInt for integers of any size, and keeps a decimal a double cannot hold as text),
 * 'true'/'false' and canonical dates need no parsing. A million-row file is read several times
 * faster so; test/unit/connectors/file/cell-values.test.ts holds the two answers equal.
 */
import type { FieldType } from '../../definitions/types.js';
import { decoderFor, type Decoder } from '../records/field-values.js';

const PLAIN_INTEGER = /^(?:0|-?[1-9][0-9]{0,14})$/;
const PLAIN_DECIMAL = /^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/;
const PLAIN_DATE = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])$/;

/** A decoder of a cell (text or null) into the value of a field of `type`. */
export function cellDecoder(type: FieldType | undefined): Decoder {
  const decode = decoderFor(type);
  switch (type) {
    case 'Integer':
      return (cell) => (typeof cell === 'string' && PLAIN_INTEGER.test(cell) ? Number(cell) : decode(cell));
    case 'Number':
      // Up to 15 characters a double holds the decimal exactly; a longer one may stay text (decodeValue).
      return (cell) => (typeof cell === 'string' && cell.length <= 15 && PLAIN_DECIMAL.test(cell) ? Number(cell) : decode(cell));
    case 'Boolean':
      return (cell) => (cell === 'true' ? true : cell === 'false' ? false : decode(cell));
    case 'Date':
      return (cell) => (typeof cell === 'string' && PLAIN_DATE.test(cell) ? cell : decode(cell));
    default:
      return decode;
  }
}

/**
 * The cell of a value in the canonical form of its type (records/field-values.ts checkFieldValue):
 * numbers and booleans as their text, Json as JSON text, dates as they are; null stays null.
 */
export function cellOf(type: FieldType, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return type === 'Json' ? JSON.stringify(value) : value;
  if (type === 'Json' || typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
