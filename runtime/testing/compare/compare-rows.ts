/**
 * A case's expected rows (`expect.systems: { erp: { Account: [ … ] } }`) against what the scratch
 * databases hold after the case ran:
 *
 * - per object, the rows are a set: their number must be exactly the number of rows listed;
 * - an expected row that gives every key field is the row with that key; one that does not (a key
 *   the database generates) is the first row not yet matched whose listed fields all match;
 * - only the fields a row lists are compared, each as its declared type reads it (records/
 *   field-values.ts: `7` and `'7'` are one Integer, `2024-01-05T10:00:00Z` and `…00.000Z` one
 *   DateTime); a typed group lists the entries it expects (`addresses: { main: { city: Lisbon } }`),
 *   `null` for a type that must have no entry.
 *
 * Each difference is its own failure, at the line of the row or field that states it.
 */
import type { FieldDescription, ObjectDescription, RecordData } from '../../../connectors/connection.js';
import { ConnectorError } from '../../../connectors/connector-error.js';
import { checkFieldValue, sameFieldValue } from '../../../connectors/records/field-values.js';
import type { FieldType } from '../../../definitions/types.js';
import { unknownSystem, unusableObject } from '../scratch/load-fixtures.js';
import type { Scratch } from '../scratch/scratch-runtime.js';
import type { CaseFailure, Locate, SystemRows } from '../test-case.js';

type Path = Array<string | number>;

export async function compareSystems(scratch: Scratch, expected: SystemRows | undefined, at: Locate): Promise<CaseFailure[]> {
  const failures: CaseFailure[] = [];
  for (const [systemId, objects] of Object.entries(expected ?? {})) {
    const unknown = unknownSystem(scratch, systemId, ['expect', 'systems', systemId], at);
    if (unknown !== undefined) {
      failures.push(unknown);
      continue;
    }
    for (const [object, rows] of Object.entries(objects ?? {})) {
      const path = ['expect', 'systems', systemId, object];
      const unusable = await unusableObject(scratch, systemId, object, path, at);
      if (unusable !== undefined) failures.push(unusable);
      else if (!Array.isArray(rows)) failures.push({ message: `the rows of ${systemId}/${object} are a list`, at: at(path) });
      else {
        const description = await scratch.describe(systemId, object);
        let actual: RecordData[];
        try {
          actual = await scratch.rows(systemId, object);
        } catch (error) {
          // The connector cannot read it (groups on a composite key of a sql object): the rows cannot be compared.
          if (!(error instanceof ConnectorError)) throw error;
          failures.push({ message: `the rows of ${systemId}/${object} cannot be read: ${error.message}`, at: at(path) });
          continue;
        }
        failures.push(...compareRows(`${systemId}/${object}`, description, rows, actual, (below) => at([...path, ...below])));
      }
    }
  }
  return failures;
}

/** One object's expected rows against its actual ones; `at` locates below the object's list. */
export function compareRows(
  label: string,
  description: ObjectDescription,
  expected: readonly RecordData[],
  actual: readonly RecordData[],
  at: Locate,
): CaseFailure[] {
  const failures: CaseFailure[] = [];
  const fields = new Map(description.fields.map((field) => [field.name, field]));
  const groups = new Map(description.groups.map((group) => [group.name, group]));
  const used = new Set<number>();
  const pairs: Array<{ index: number; row: RecordData; actual: RecordData }> = [];
  const unkeyed: Array<{ index: number; row: RecordData }> = [];

  for (const [index, row] of expected.entries()) {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      failures.push({ message: `expected row ${index + 1} of ${label} is not a record (field: value, …)`, at: at([index]) });
      continue;
    }
    for (const name of Object.keys(row)) {
      if (!fields.has(name) && !groups.has(name)) {
        const known = [...fields.keys(), ...groups.keys()].join(', ');
        failures.push({ message: `${label} has no field '${name}'; its fields are ${known}`, at: at([index, name]) });
      }
    }
    const keyed = description.key.every((name) => row[name] !== undefined && row[name] !== null);
    if (!keyed) {
      unkeyed.push({ index, row });
      continue;
    }
    const found = actual.findIndex((candidate) =>
      description.key.every((name) => sameValue(fields.get(name)?.type, row[name], candidate[name])),
    );
    const keyText = description.key.map((name) => `${name} = ${JSON.stringify(row[name])}`).join(', ');
    if (found < 0) {
      failures.push({ message: `${label} has no row with ${keyText}`, at: at([index]), expected: row, actual: [...actual] });
    } else if (used.has(found)) {
      failures.push({ message: `${label}: two expected rows have ${keyText}; a key names one row`, at: at([index]) });
    } else {
      used.add(found);
      pairs.push({ index, row, actual: actual[found]! });
    }
  }
  // Rows without their key take the rows the keyed ones left, first match first.
  for (const { index, row } of unkeyed) {
    const found = actual.findIndex(
      (candidate, position) => !used.has(position) && differences(fields, groups, row, candidate).length === 0,
    );
    if (found < 0) {
      failures.push({
        message: `${label} has no row matching expected row ${index + 1} (it gives no ${description.key.join(', ')}, so any row with its fields would do)`,
        at: at([index]),
        expected: row,
        actual: actual.filter((_, position) => !used.has(position)),
      });
    } else used.add(found);
  }
  for (const { index, row, actual: found } of pairs) {
    for (const difference of differences(fields, groups, row, found)) {
      failures.push({
        message: `${label} row ${description.key.map((name) => `${name} = ${JSON.stringify(found[name])}`).join(', ')}: ${difference.path.join('.')} is ${JSON.stringify(difference.actual) ?? 'absent'}, expected ${JSON.stringify(difference.expected)}`,
        at: at([index, ...difference.path]),
        expected: difference.expected,
        actual: difference.actual,
      });
    }
  }
  if (actual.length !== expected.length) {
    const extra = actual.filter((_, position) => !used.has(position));
    failures.push({
      message: `${label} has ${actual.length} row(s), expected ${expected.length}${extra.length > 0 && actual.length > expected.length ? `; not expected: ${extra.map((row) => keyOf(description, row)).join('; ')}` : ''}`,
      at: at([]),
      expected: [...expected],
      actual: [...actual],
    });
  }
  return failures;
}

interface Difference {
  path: Path;
  expected: unknown;
  actual: unknown;
}

/** Where `actual` differs from the fields `expected` lists (unknown names are reported apart). */
function differences(
  fields: ReadonlyMap<string, FieldDescription>,
  groups: ReadonlyMap<string, ObjectDescription['groups'][number]>,
  expected: RecordData,
  actual: RecordData,
): Difference[] {
  const found: Difference[] = [];
  for (const [name, value] of Object.entries(expected)) {
    const field = fields.get(name);
    if (field !== undefined) {
      if (!sameValue(field.type, value, actual[name])) found.push({ path: [name], expected: value, actual: actual[name] });
      continue;
    }
    const group = groups.get(name);
    if (group === undefined) continue;
    const entries = (actual[name] ?? {}) as Record<string, RecordData | undefined>;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      found.push({ path: [name], expected: value, actual: actual[name] });
      continue;
    }
    const groupFields = new Map(group.fields.map((groupField) => [groupField.name, groupField]));
    for (const [type, entry] of Object.entries(value as Record<string, unknown>)) {
      const actualEntry = entries[type];
      if (entry === null || entry === undefined) {
        if (actualEntry !== undefined) found.push({ path: [name, type], expected: null, actual: actualEntry });
        continue;
      }
      if (typeof entry !== 'object' || Array.isArray(entry) || actualEntry === undefined) {
        found.push({ path: [name, type], expected: entry, actual: actualEntry });
        continue;
      }
      for (const [fieldName, fieldValue] of Object.entries(entry as RecordData)) {
        const groupField = groupFields.get(fieldName);
        if (groupField === undefined || !sameValue(groupField.type, fieldValue, actualEntry[fieldName]))
          found.push({ path: [name, type, fieldName], expected: fieldValue, actual: actualEntry[fieldName] });
      }
    }
  }
  return found;
}

/** An expected value (as written) and an actual one (as read) of one field type: the same value? */
function sameValue(type: FieldType | undefined, expected: unknown, actual: unknown): boolean {
  if (expected === null || expected === undefined) return actual === null || actual === undefined;
  let canonical: unknown = expected;
  if (type !== undefined) {
    try {
      canonical = checkFieldValue(type, expected, { label: 'expected' });
    } catch {
      // Not a value of the type: compared as written, and so found different.
    }
  }
  return sameFieldValue(canonical, actual);
}

function keyOf(description: ObjectDescription, row: RecordData): string {
  return description.key.map((name) => `${name} = ${JSON.stringify(row[name])}`).join(', ');
}
