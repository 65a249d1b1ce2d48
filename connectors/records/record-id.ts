/**
 * The id of one record (GETDATA_ID, GetDataObject, a write's answer read back): a value for each
 * key field and nothing else, each a valid value of its field's type. A value that cannot be one
 * (GETDATA_ID "abc" for an Integer key) is a mistake worth a 400, not an empty answer.
 */
import { ConnectorError } from '../connector-error.js';
import type { FieldType } from '../../definitions/types.js';
import { checkFieldValue, type FieldTarget } from './field-values.js';
import { fieldNamed, unknownField, type RecordObject } from './object-model.js';

/**
 * The id's key values as `check` gives them — by default in canonical form (records/field-values.ts);
 * a connector whose system refuses more (text with NUL) passes its own. Throws what the caller is answered.
 */
export function checkId(
  object: RecordObject,
  id: Readonly<Record<string, unknown>>,
  check: (type: FieldType, raw: unknown, target: FieldTarget) => unknown = checkFieldValue,
): Record<string, unknown> {
  for (const name of Object.keys(id)) {
    if (!object.key.includes(name)) throw unknownField(object, name, `; the key of ${object.name} is ${object.key.join(', ')}`);
  }
  const missing = object.key.filter((name) => !Object.hasOwn(id, name));
  if (missing.length > 0) {
    throw new ConnectorError('invalid-value', `${object.name}: the id needs every key field; missing ${missing.join(', ')}`, {
      details: { object: object.name, missing },
    });
  }
  const values: Record<string, unknown> = {};
  for (const name of object.key) {
    const type = fieldNamed(object, name).type;
    try {
      values[name] = check(type, id[name], { label: `${object.name}.${name}` });
    } catch (error) {
      // The value is not repeated: ids arrive in URLs and parameters, and the caller has it.
      if (!(error instanceof ConnectorError)) throw error;
      throw new ConnectorError('invalid-value', `the id of ${object.name} is not a valid ${type} value for its key field ${name}`, {
        cause: error,
        details: { field: name },
      });
    }
  }
  return values;
}
