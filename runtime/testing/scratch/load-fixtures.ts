/**
 * A case's fixture rows (`systems: { crm: { Customer: [ … ] } }`) into its scratch databases, each
 * row written as a record of its object through the sql connector (groups as typed group entries,
 * values checked against the declared types), past read-only flags: a fixture is what the system
 * holds before the case, whoever wrote it. A row that cannot be loaded fails the case at that row,
 * as do two rows with one key (the second would quietly update the first).
 */
import type { RecordData } from '../../../connectors/connection.js';
import { ConnectorError } from '../../../connectors/connector-error.js';
import { sameFieldValue } from '../../../connectors/records/field-values.js';
import type { CaseFailure, Locate, SystemRows } from '../test-case.js';
import type { Scratch } from './scratch-runtime.js';

export async function loadFixtures(scratch: Scratch, fixtures: SystemRows | undefined, at: Locate): Promise<CaseFailure[]> {
  const failures: CaseFailure[] = [];
  for (const [systemId, objects] of Object.entries(fixtures ?? {})) {
    const unknown = unknownSystem(scratch, systemId, ['systems', systemId], at);
    if (unknown !== undefined) {
      failures.push(unknown);
      continue;
    }
    for (const [object, rows] of Object.entries(objects ?? {})) {
      failures.push(...(await loadObject(scratch, systemId, object, rows ?? [], at)));
    }
  }
  return failures;
}

/** The failure of naming a system the definitions do not have; undefined when they have it. */
export function unknownSystem(scratch: Scratch, systemId: string, path: readonly (string | number)[], at: Locate): CaseFailure | undefined {
  if (scratch.snapshot.systems.has(systemId)) return undefined;
  const known = [...scratch.snapshot.systems.keys()].sort();
  return { message: `there is no system '${systemId}'; the systems are ${known.join(', ') || 'none'}`, at: at(path) };
}

/** The failure of naming an object that has no stand-in or does not exist; undefined for a usable one. */
export async function unusableObject(
  scratch: Scratch,
  systemId: string,
  object: string,
  path: readonly (string | number)[],
  at: Locate,
): Promise<CaseFailure | undefined> {
  const refusal = scratch.refusal(systemId, 'object', object);
  if (refusal !== undefined)
    return { message: `${systemId}/${object} has no scratch SQLite database to stand in for it: ${refusal}`, at: at(path) };
  try {
    await scratch.describe(systemId, object);
    return undefined;
  } catch (error) {
    if (error instanceof ConnectorError) return { message: error.message, at: at(path) };
    throw error;
  }
}

async function loadObject(
  scratch: Scratch,
  systemId: string,
  object: string,
  rows: readonly unknown[],
  at: Locate,
): Promise<CaseFailure[]> {
  const path = ['systems', systemId, object];
  const unusable = await unusableObject(scratch, systemId, object, path, at);
  if (unusable !== undefined) return [unusable];
  if (!Array.isArray(rows)) return [{ message: `the fixture of ${systemId}/${object} is a list of rows`, at: at(path) }];
  const failures: CaseFailure[] = [];
  const key = (await scratch.describe(systemId, object)).key;
  const loadable: Array<{ row: RecordData; index: number }> = [];
  for (const [index, row] of rows.entries()) {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      failures.push({
        message: `fixture row ${index + 1} of ${systemId}/${object} is not a record (field: value, …)`,
        at: at([...path, index]),
      });
      continue;
    }
    const record = row as RecordData;
    const twin = loadable.find(
      (earlier) =>
        key.every((field) => record[field] !== undefined && record[field] !== null) &&
        key.every((field) => sameFieldValue(earlier.row[field], record[field])),
    );
    if (twin !== undefined) {
      failures.push({
        message: `fixture row ${index + 1} of ${systemId}/${object} has the key of row ${twin.index + 1} (${key.map((field) => `${field} = ${JSON.stringify(record[field])}`).join(', ')}); a key names one record`,
        at: at([...path, index]),
      });
      continue;
    }
    loadable.push({ row: record, index });
  }
  let results: Awaited<ReturnType<Scratch['load']>>;
  try {
    results = await scratch.load(
      systemId,
      object,
      loadable.map((entry) => entry.row),
    );
  } catch (error) {
    return [...failures, { message: `the fixture of ${systemId}/${object} cannot be loaded: ${messageOf(error)}`, at: at(path) }];
  }
  for (const [position, result] of results.entries()) {
    if (!(result instanceof ConnectorError)) continue;
    const { index } = loadable[position]!;
    failures.push({
      message: `fixture row ${index + 1} of ${systemId}/${object} cannot be loaded: ${result.message}`,
      at: at([...path, index]),
    });
  }
  return failures;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
