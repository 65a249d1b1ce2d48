/**
 * Write values as a database takes them: the value is checked against its declared type
 * (records/field-values.ts, the same check every connector makes), then bound the way the
 * System's engine binds it — booleans as true/false or 1/0, date-times as its date-time text, Json
 * as JSON text — and text that the engine cannot hold (NUL in PostgreSQL) is refused naming the
 * field. Values read back are decoded by records/field-values.ts.
 */
import type { FieldType } from '../../definitions/types.js';
import { ConnectorError } from '../connector-error.js';
import { checkFieldValue, type FieldTarget } from '../records/field-values.js';
import type { Engine } from './engines/index.js';
import { int64Text } from './engines/engine.js';

export interface EncodeTarget extends FieldTarget {
  engine: Engine;
}

function refuseNul(target: EncodeTarget, what: string): never {
  throw new ConnectorError('invalid-value', `${target.label}: ${target.engine.label} ${what} cannot hold the NUL character (U+0000)`, {
    details: { field: target.label },
  });
}

/** A write value as the database takes it; null stays null (required fields are checked by the caller). */
export function encodeValue(type: FieldType, raw: unknown, target: EncodeTarget): unknown {
  return bindChecked(type, checkFieldValue(type, raw, target), target);
}

/** A value already checked (records/write-checks.ts) as the database takes it. */
export function bindChecked(type: FieldType, checked: unknown, target: EncodeTarget): unknown {
  if (checked === null) return null;
  const engine = target.engine;
  switch (type) {
    case 'String':
      if (!engine.holdsNul && (checked as string).includes('\u0000')) refuseNul(target, 'text');
      return checked;
    case 'Integer':
      // Text is an integer a double cannot hold (records/field-values.ts).
      if (engine.roundsWideIntegers && typeof checked === 'string' && int64Text(checked) === undefined) {
        throw new ConnectorError(
          'invalid-value',
          `${target.label}: ${engine.label} holds integers of 64 bits (±9223372036854775807), and would store ${checked} rounded`,
          { details: { field: target.label } },
        );
      }
      return checked;
    case 'Boolean':
      return engine.booleanBinding(checked as boolean);
    case 'DateTime':
      return engine.dateTimeText(checked as string);
    case 'Json': {
      const json = JSON.stringify(checked);
      if (!engine.holdsNul && json.includes('\\u0000')) refuseNul(target, 'JSON');
      return json;
    }
    default:
      return checked;
  }
}
