/**
 * Key values from text (GETDATA_ID, the {object_key} of GetDataObject). A single-field key is
 * the value itself; a composite key is a JSON object (`{"order":7,"line":2}`) or the values in key
 * order separated by commas (`7,2`). Values stay strings here; the connector converts them by the
 * declared field type and rejects what does not fit.
 */
import type { ObjectDescription } from '../../connectors/connection.js';
import { HttpProblem } from '../errors.js';

export function parseKey(object: ObjectDescription, text: string, path: string): Record<string, unknown> {
  const key = object.key;
  if (key.length === 1) return { [key[0]!]: text };
  if (text.trimStart().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw bad(path, `The key of ${object.name} is composite (${key.join(', ')}); give a JSON object or the values separated by commas.`);
    }
    const values = parsed as Record<string, unknown>;
    const missing = key.filter((field) => !(field in values));
    const extra = Object.keys(values).filter((field) => !key.includes(field));
    if (missing.length || extra.length) {
      throw bad(path, `The key of ${object.name} is ${key.join(', ')}${missing.length ? `; missing ${missing.join(', ')}` : ''}${extra.length ? `; not key fields: ${extra.join(', ')}` : ''}.`);
    }
    return Object.fromEntries(key.map((field) => [field, values[field]]));
  }
  const parts = text.split(',');
  if (parts.length !== key.length) throw bad(path, `The key of ${object.name} has ${key.length} fields (${key.join(', ')}); ${parts.length} value(s) given.`);
  return Object.fromEntries(key.map((field, index) => [field, parts[index]]));
}

function bad(path: string, message: string): HttpProblem {
  return new HttpProblem('invalid-request', message, { errors: [{ path, message }] });
}
