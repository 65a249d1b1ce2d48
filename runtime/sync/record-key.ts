/**
 * Key values from text (GETDATA_ID, the {object_key} of GetDataObject, an ad-hoc start's source
 * id). Three spellings, for any key:
 *
 * - the value itself, for a single-field key (`7`, `C-2`);
 * - the values in key order separated by commas, for a composite key (`7,2`);
 * - a JSON object naming every key field (`{"id":7}`, `{"order":7,"line":2}`), whatever the key's
 *   width — what a client that always sends objects has at hand.
 *
 * Text starting with `{` is read as that JSON object when it parses as one. For a single text key
 * whose value itself starts with `{` and happens to parse, wrap it: `{"code":"{x}"}`; text that
 * does not parse stays the value of a single-field key. An object naming a field outside the key,
 * missing one, or giving a value that is not a string, number or boolean is a 400 naming the field;
 * so is a number past 2^53, which JSON parsing has rounded (it would name another record).
 * Values stay as given here; the connector converts them by the declared field type and rejects
 * what does not fit.
 */
import type { ObjectDescription } from '../../connectors/connection.js';
import { roundedInteger } from '../../definitions/expression/index.js';
import { HttpProblem } from '../errors.js';
import { scanJsonText } from '../request/json-text.js';

export function parseKey(object: ObjectDescription, text: string, path: string): Record<string, unknown> {
  const key = object.key;
  const values = keyObject(text, path);
  if (values !== undefined) return fromObject(object, values, path);
  if (key.length === 1) return { [key[0]!]: text };
  if (text.trimStart().startsWith('{')) {
    throw bad(path, `The key of ${object.name} is composite (${key.join(', ')}); give a JSON object or the values separated by commas.`);
  }
  const parts = text.split(',');
  if (parts.length !== key.length)
    throw bad(path, `The key of ${object.name} has ${key.length} fields (${key.join(', ')}); ${parts.length} value(s) given.`);
  return Object.fromEntries(key.map((field, index) => [field, parts[index]]));
}

/**
 * The JSON object `text` holds, or undefined when it holds none. A field given twice is refused,
 * as in a request body: JSON.parse would keep the last copy, and `{"id":2,"id":3}` read record 3.
 */
function keyObject(text: string, path: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const twice = scanJsonText(text, KEY_DEPTH).duplicateKey;
  if (twice !== undefined) throw bad(path, `The key object gives ${JSON.stringify(twice.key)} twice; give each key field once.`);
  return parsed as Record<string, unknown>;
}

/** A key object is flat; the scan needs a bound, not this one. */
const KEY_DEPTH = 64;

function fromObject(object: ObjectDescription, values: Record<string, unknown>, path: string): Record<string, unknown> {
  const key = object.key;
  // Own properties only: a key field named like an Object.prototype member must not be "present".
  const missing = key.filter((field) => !Object.hasOwn(values, field));
  const extra = Object.keys(values).filter((field) => !key.includes(field));
  if (missing.length || extra.length) {
    throw bad(
      path,
      `The key of ${object.name} is ${key.join(', ')}${missing.length ? `; missing ${missing.join(', ')}` : ''}${extra.length ? `; not key fields: ${extra.join(', ')}` : ''}.`,
    );
  }
  const wrong = key.filter((field) => !['string', 'number', 'boolean'].includes(typeof values[field]));
  if (wrong.length > 0) {
    const described = wrong.map((field) => `${field} is ${describe(values[field])}`).join(', ');
    throw bad(path, `The key of ${object.name} takes a string, number or boolean per field; ${described}.`);
  }
  // As in a path: a NUL spelt \u0000 inside the key's JSON is refused like a NUL in the path itself.
  const nul = key.find((field) => typeof values[field] === 'string' && (values[field] as string).includes('\u0000'));
  if (nul !== undefined) throw bad(path, `The key's ${nul} contains a NUL character (\\u0000), which no text here may hold; remove it.`);
  // JSON parsing has rounded such a number already: the key would name another record (a String
  // key field would read '…800' for 1234567890123456790).
  const rounded = key.filter((field) => roundedInteger(values[field]));
  if (rounded.length > 0) {
    throw bad(
      path,
      `The key of ${object.name}: ${rounded.join(', ')} is a number past 2^53, which JSON rounds; give it as a string of its exact digits.`,
    );
  }
  return Object.fromEntries(key.map((field) => [field, values[field]]));
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `an ${typeof value}`;
}

function bad(path: string, message: string): HttpProblem {
  return new HttpProblem('invalid-request', message, { errors: [{ path, message }] });
}
