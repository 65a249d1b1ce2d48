/**
 * An ad-hoc start's source id, checked against its sync's source (a flow's: its first sync's)
 * before the item exists, as the WhereClause is (where-clause.ts): `abc` for an Integer key was
 * enqueued, answered 200, and became a Failed item once a daemon read it, long after the caller
 * left. The id must be spelled as the run reads it (record-key.ts: the value, values separated by
 * commas, or a JSON object) and each key value must fit its field's declared type, as the run's
 * connector checks it; a query source's id must be a number when its first column is one, as
 * the run binds it; and what the source's connector checks of an id before reading by it (the
 * 64-bit range of an SQL Integer), through its connection, which reads nothing for it. Record-store
 * sources, whose ids are GUIDs, are left to the run.
 */
import type { ConnectionProvider } from '../../connectors/connection-pool.js';
import { ConnectorError } from '../../connectors/connector-error.js';
import { checkFieldValue } from '../../connectors/records/field-values.js';
import { numberFromText } from '../../definitions/expression/index.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { FieldType } from '../../definitions/types.js';
import { HttpProblem } from '../errors.js';
import { parseKey } from '../sync/record-key.js';
import { firstSyncOf } from '../sync/where-clause.js';
import type { ProcessTarget } from './resolve-process.js';

/** `path`: where the id came from, for the problem (`path.sourceId`, `/SourceId`). */
export async function checkSourceId(
  snapshot: Snapshot,
  connections: ConnectionProvider,
  target: ProcessTarget,
  sourceId: string,
  path: string,
): Promise<void> {
  const sync = firstSyncOf(snapshot, target.id);
  const source = sync?.definition.source;
  if (source === undefined || source.recordStore || source.system === undefined) return;
  const system = snapshot.systems.get(source.system)?.definition;
  if (system === undefined) return;
  if (source.query !== undefined) {
    // The run binds the id as a number for a numeric first column when it spells one (`1.0`
    // included), else as text, which such a column cannot be compared with (source-pages.ts).
    const first = system.queries[source.query]?.columns[0];
    if ((first?.type === 'Integer' || first?.type === 'Number') && numberFromText(sourceId.trim()) === null) {
      refuse(first.type, `the first column ${first.name} of query ${source.system}/${source.query}`, path);
    }
    return;
  }
  const object = source.object === undefined ? undefined : system.objects[source.object];
  if (object === undefined || object.key.length === 0) return;
  const name = `${source.system}/${source.object}`;
  const values = parseKey({ name, key: object.key, fields: [], groups: [] }, sourceId, path);
  for (const field of object.key) {
    const type = object.fields[field]?.type;
    if (type !== undefined) checkValue(type, values[field], `the key field ${field} of ${name}`, path);
  }
  // What only the connector knows: the range its system holds (an Integer past 64 bits in SQL).
  const refusal = (await connections.get(system)).checkId?.(source.object!, values);
  if (refusal !== undefined) {
    const field = String(refusal.details?.field ?? object.key[0]);
    refuse(object.fields[field]?.type ?? 'String', `the key field ${field} of ${name}`, path, refusal);
  }
}

function checkValue(type: FieldType, value: unknown, what: string, path: string): void {
  try {
    checkFieldValue(type, value, { label: what });
  } catch (error) {
    if (!(error instanceof ConnectorError)) throw error;
    refuse(type, what, path, error);
  }
}

function refuse(type: FieldType, what: string, path: string, cause?: unknown): never {
  // The value is not repeated: the caller has it, and it may be long.
  const message = `The source id is not a valid ${type} value for ${what}.`;
  throw new HttpProblem('invalid-request', message, { errors: [{ path, message }], cause });
}
