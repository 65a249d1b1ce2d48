/**
 * One write: checked as every connector checks it (records/write-checks.ts), then the record its
 * match (or key) names is looked for (find-records.ts): one found is updated with the object's
 * `update` request (or left as it is with onMatch skip), none is created with its `create` request,
 * several are refused as ambiguous. The API has no transaction around the look and the write, so
 * two writers may both create; writeMany keeps writes of one match in order (write-many.ts).
 *
 * Bodies: a create sends the new record (values, the match values it lacks, group entries); a
 * PATCH sends the fields written and the groups written, merged into the record's own entries; a
 * PUT sends the whole record as it was read with those changes. The key of a created record comes
 * from the answer (the record, or what `create.key` gives), else from what was sent.
 *
 * The API's refusals, in our words (its answer is only the `cause`, for the log): 400, 409, 412
 * and 422 are 'rejected' naming the object and the operation; a 404 to an update is 'rejected'
 * (the record is gone); the web client has already turned 401/403 into 'unavailable'.
 */
import type { RecordData, WriteRequest, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { sameFieldValue } from '../records/field-values.js';
import {
  ambiguousMatch,
  checkGroupEntry,
  checkWrite,
  newRecordValues,
  writeRefusal,
  writeResult,
  type CheckedWrite,
} from '../records/write-checks.js';
import type { WebResponse } from '../web/index.js';
import { checkedMatch, findRecords, type FoundRecord } from './find-records.js';
import type { HttpObject } from './http-object.js';
import { createdRecord, mismatch } from './list-answer.js';
import { fillPathTemplate } from './path-template.js';
import type { ObjectScope } from './read.js';
import { resentRecord, writeBody } from './record-json.js';

type Groups = Map<string, Map<string, RecordData>>;

/** details.reason of the error for a create whose answer lacks the new key: the record's own error (write-many.ts). */
export const KEYLESS_CREATE = 'key-less-create-answer';

function checkedGroups(object: HttpObject, request: WriteRequest): Groups {
  const groups: Groups = new Map();
  for (const [name, entries] of Object.entries(request.groups ?? {})) {
    const group = object.groups.get(name)!;
    const checked = new Map<string, RecordData>();
    for (const [type, entry] of Object.entries(entries)) checked.set(type, checkGroupEntry(object, group, type, entry));
    if (checked.size > 0) groups.set(name, checked);
  }
  return groups;
}

function notDeclared(scope: Pick<ObjectScope, 'object' | 'systemId'>, operation: 'create' | 'update', example: string): ConnectorError {
  const { object, systemId } = scope;
  return new ConnectorError(
    'unsupported',
    `${object.name} of system '${systemId}' cannot ${operation} records: the http connector needs objects.${object.name}.${operation} (e.g. ${example}) in the System definition`,
    { details: { connector: 'http', object: object.name, operation } },
  );
}

/** The error for a write the API did not take. */
function refused(scope: ObjectScope, operation: 'create' | 'update', response: WebResponse): ConnectorError {
  const { object, systemId } = scope;
  const failure = response.failure();
  const request = `${String(failure.details?.method)} ${String(failure.details?.path)}`;
  const details = { system: systemId, object: object.name, operation, status: response.status };
  if (operation === 'update' && (response.status === 404 || response.status === 410)) {
    return new ConnectorError(
      'rejected',
      `${object.name}: the record to update is no longer in system '${systemId}' (HTTP ${response.status} to ${request}); nothing was written`,
      { cause: failure, details },
    );
  }
  if ([400, 409, 412, 422].includes(response.status)) {
    return new ConnectorError(
      'rejected',
      `${object.name}: system '${systemId}' refused to ${operation} the record (HTTP ${response.status} to ${request}); check the values written against what the API accepts`,
      { cause: failure, details },
    );
  }
  return failure;
}

async function create(scope: ObjectScope, checked: CheckedWrite, groups: Groups, signal?: AbortSignal): Promise<WriteResult> {
  const { object, web, systemId } = scope;
  if (object.create === undefined) throw notDeclared(scope, 'create', '{ path: /customers }');
  const values = newRecordValues(object, checked);
  const path = fillPathTemplate(object.create.path, values, { object: object.name, operation: 'create' });
  const body = writeBody(object, values, groups, undefined);
  const response = await web.request({
    method: object.create.method,
    path,
    query: object.create.query,
    json: body,
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw refused(scope, 'create', response);
  const context = { systemId, object, request: `${object.create.method} ${new URL(response.url).pathname}` };
  const answered = await createdRecord(object, response, context);
  const key: RecordData = {};
  for (const name of object.key) {
    const value = answered[name] ?? values[name];
    if (value === undefined || value === null) {
      throw mismatch(
        context,
        `without the new record's ${name}; set objects.${object.name}.create.key to where the answer has it (the record was created)`,
        undefined,
        { reason: KEYLESS_CREATE },
      );
    }
    key[name] = value;
  }
  return writeResult(object, 'created', key);
}

async function update(
  scope: ObjectScope,
  checked: CheckedWrite,
  groups: Groups,
  found: FoundRecord,
  signal?: AbortSignal,
): Promise<WriteResult> {
  const { object, web } = scope;
  const key = { ...found.record, ...checked.settable };
  // Fields that only identified the record (the key in the values) are no change to send.
  const settable = Object.fromEntries(
    Object.entries(checked.settable).filter(
      ([name, value]) => !(checked.match !== undefined && Object.hasOwn(checked.match, name) && sameFieldValue(found.record[name], value)),
    ),
  );
  if (Object.keys(settable).length === 0 && groups.size === 0) return writeResult(object, 'updated', key);
  if (object.update === undefined) throw notDeclared(scope, 'update', '{ method: PATCH, path: /customers/{id} }');
  // The path names the record as the API spelled it (a key "007" reads as 7, a date-time may be
  // written with an offset), so that it addresses the resource found; a key changed by this write is in the body.
  const path = fillPathTemplate(object.update.path, found.raw, { object: object.name, operation: 'update' });
  const changes = writeBody(object, settable, groups, found.raw);
  const body = object.update.method === 'PUT' ? { ...resentRecord(object, found.raw), ...changes } : changes;
  const response = await web.request({
    method: object.update.method,
    path,
    query: object.update.query,
    json: body,
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw refused(scope, 'update', response);
  return writeResult(object, 'updated', key);
}

/** Creates or updates one record, as Connection.write says. */
export async function writeRecord(scope: ObjectScope, request: WriteRequest, signal?: AbortSignal): Promise<WriteResult> {
  const { object } = scope;
  const checked = checkWrite(object, request);
  const groups = checkedGroups(object, request);
  if (checked.match === undefined) return create(scope, checked, groups, signal);
  const found = await findRecords(scope, checkedMatch(object, checked.match), 2, signal);
  if (found.length > 1) throw ambiguousMatch(object, checked);
  const [record] = found;
  if (record === undefined) return create(scope, checked, groups, signal);
  if (request.onMatch === 'skip') return writeResult(object, 'skipped', record.record);
  return update(scope, checked, groups, record, signal);
}

/**
 * The refusal a write meets before the API is asked (Connection.checkWrite): the checks every
 * connector makes; a create the object declares no `create` for, or whose path its values cannot
 * fill; an update that sets more than the fields identifying the record without an `update`. Or
 * undefined.
 */
export function httpWriteRefusal(
  scope: Pick<ObjectScope, 'object' | 'systemId'>,
  request: WriteRequest,
  action: 'create' | 'update',
): ConnectorError | undefined {
  const { object } = scope;
  return writeRefusal(object, request, action, ({ checked, entries, created }) => {
    if (created !== undefined) {
      if (object.create === undefined) throw notDeclared(scope, 'create', '{ path: /customers }');
      fillPathTemplate(object.create.path, created, { object: object.name, operation: 'create' });
      return;
    }
    // What only identifies the record is no change to send; the rest needs the update request.
    const changes = Object.keys(checked.settable).filter((name) => checked.match === undefined || !Object.hasOwn(checked.match, name));
    if (object.update === undefined && (changes.length > 0 || entries.length > 0))
      throw notDeclared(scope, 'update', '{ method: PATCH, path: /customers/{id} }');
  });
}
