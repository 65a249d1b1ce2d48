/**
 * A System's objects as the sql connector uses them: the shared record model
 * (records/object-model.ts: key, typed fields, typed groups, and the checks of field names and
 * paths), plus each object's table and each typed group's child table, foreign key and type
 * column.
 */
import type { SystemDefinition } from '../../definitions/types.js';
import { ConnectorError } from '../connector-error.js';
import { buildObjects as buildRecordObjects, type RecordField, type RecordGroup, type RecordObject } from '../records/object-model.js';

export { fieldNamed, objectNamed, objectOrError, resolveFieldPath, unknownField } from '../records/object-model.js';

export type SqlField = RecordField;

export interface SqlGroup extends RecordGroup {
  table: string;
  foreignKey: string;
  typeField: string;
}

export interface SqlObject extends RecordObject<SqlGroup> {
  table: string;
}

export function buildObjects(system: SystemDefinition): ReadonlyMap<string, SqlObject> {
  return buildRecordObjects(system, {
    object: (definition) => ({ table: String(definition.table) }),
    group: (definition) => ({
      table: String(definition.table),
      foreignKey: String(definition.foreignKey),
      typeField: typeof definition.typeField === 'string' ? definition.typeField : 'type',
    }),
  });
}

/** The single key field a group's foreign key refers to. */
export function groupParentKey(object: SqlObject): string {
  const [key, ...more] = object.key;
  if (key === undefined || more.length > 0) {
    throw new ConnectorError(
      'unsupported',
      `${object.name} has typed groups but a key of ${object.key.length} fields; the sql connector joins groups on a single key field`,
      {
        details: { connector: 'sql', construct: 'typed groups on a composite key' },
      },
    );
  }
  return key;
}
