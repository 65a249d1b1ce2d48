/**
 * A write the service refused, in our words. The OData error body (`{"error": {"code", "message",
 * "target", "details": [{"target"}]}}`) is read only for where it points: each `target` naming a
 * declared field (`score`, or `addresses(type='main')/country` in a deep insert, or `country` in a
 * request on a group entry) becomes the field's name as the caller writes it
 * (`Customer.addresses[main].country`). Its message and code never reach the caller: the body
 * travels as the error's `cause`, for the log.
 *
 * | status        | answer                                                                 |
 * |---------------|------------------------------------------------------------------------|
 * | 400, 422      | rejected: the service refused the values, naming the fields it pointed at |
 * | 409           | rejected: a conflict with the service's data (a unique value, a key)   |
 * | 412           | rejected: the record changed since it was read; nothing was written    |
 * | 404           | rejected: the record is gone                                           |
 * | other 4xx     | rejected, with the status                                              |
 * | 5xx           | unavailable: the service failed                                        |
 */
import { ConnectorError } from '../connector-error.js';
import type { BoundObject } from './object-model.js';

/** Which part of the record a request wrote: the record itself, or one group entry. */
export interface WriteTarget {
  group?: string;
  type?: string;
}

interface ODataErrorBody {
  error?: { target?: unknown; details?: unknown };
}

function targetsOf(body: unknown): string[] {
  const error = (body as ODataErrorBody | null)?.error;
  if (error === null || typeof error !== 'object') return [];
  const targets: unknown[] = [error.target];
  if (Array.isArray(error.details)) for (const detail of error.details) targets.push((detail as { target?: unknown } | null)?.target);
  return targets.filter((target): target is string => typeof target === 'string' && target !== '');
}

/** `addresses(type='main')/country` → the group of `addresses`, its type from the predicate, and `country`. */
function groupTarget(bound: BoundObject, target: string): { group: string; type: string | undefined; field: string } | undefined {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)(\(([^)]*)\))?(?:\/|\[\d+\]\/|\/\d+\/)([A-Za-z_][A-Za-z0-9_]*)$/.exec(target);
  if (match === null) return undefined;
  const group = [...bound.groups.values()].find((candidate) => candidate.member === match[1]);
  if (group === undefined || !group.fields.has(match[4]!)) return undefined;
  const predicate = match[3] ?? '';
  const typed = new RegExp(`(?:^|,)\\s*${group.typeField.name}\\s*=\\s*'?((?:[^',]|'')*)'?`).exec(predicate);
  const type = typed?.[1]?.replaceAll("''", "'");
  return { group: group.group.name, type: type !== undefined && group.group.types.includes(type) ? type : undefined, field: match[4]! };
}

/** The declared fields an error body points at, named as the caller writes them. */
export function fieldsNamed(bound: BoundObject, body: unknown, scope: WriteTarget = {}): string[] {
  const name = bound.object.name;
  const fields = new Set<string>();
  for (const target of targetsOf(body)) {
    const field = target.replace(/^in\//, '');
    if (scope.group !== undefined) {
      if (bound.groups.get(scope.group)?.fields.has(field)) fields.add(`${name}.${scope.group}[${scope.type}].${field}`);
      continue;
    }
    if (bound.fields.has(field)) {
      fields.add(`${name}.${field}`);
      continue;
    }
    const inGroup = groupTarget(bound, field);
    if (inGroup !== undefined)
      fields.add(`${name}.${inGroup.group}${inGroup.type === undefined ? '' : `[${inGroup.type}]`}.${inGroup.field}`);
  }
  return [...fields];
}

/** The error for a write answered with `status` (4xx or 5xx). */
export function refusedWrite(bound: BoundObject, status: number, body: unknown, cause: unknown, scope: WriteTarget = {}): ConnectorError {
  const object = bound.object.name;
  const fields = fieldsNamed(bound, body, scope);
  const details = { system: bound.systemId, object, status, ...(fields.length > 0 ? { fields } : {}) };
  if (status >= 500) {
    return new ConnectorError('unavailable', `system '${bound.systemId}' failed writing ${object} (HTTP ${status})`, { cause, details });
  }
  let why: string;
  switch (status) {
    case 400:
    case 422:
      why = `the service refused the values (HTTP ${status})${fields.length > 0 ? `; it named ${fields.join(', ')}` : ''}`;
      break;
    case 409:
      why = 'the service refused it as a conflict with its data (HTTP 409), such as the same unique value or key as another record';
      break;
    case 412:
      why = 'the record changed since it was read (HTTP 412); nothing was written, write it again';
      break;
    case 404:
      why = 'the record is gone from the service (HTTP 404)';
      break;
    default:
      why = `the service refused the write (HTTP ${status})`;
  }
  return new ConnectorError('rejected', `${object}: ${why}`, { cause, details });
}
