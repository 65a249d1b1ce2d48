/**
 * What a write sends, once its lookup is done:
 *
 * - **Nothing found: create.** One `POST Customers` with the new record's values and its group
 *   entries inline (a deep insert of the navigation entries, or the complex collection): a single
 *   request, which the service stores whole or not at all.
 * - **One found: update.** `PATCH Customers(7)` with the values that change (If-Match with the
 *   entity's `@odata.etag` when the service gave one), then per group entry `PATCH` of the entry of
 *   that type when it exists, `POST Customers(7)/addresses` when it does not. A complex collection
 *   is sent whole in the record's PATCH: the entries of the other types as the lookup read them,
 *   those written merged over them. These requests go in one changeset (atomic) where the service
 *   takes `$batch`, in this order otherwise.
 * - `onMatch: skip`: nothing.
 */
import type { RecordData, WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { newRecordValues, writeResult } from '../records/write-checks.js';
import { keyOfEntityId } from './odata-literals.js';
import type { BatchRequest } from './batch/batch-parts.js';
import { decodeEntity } from './decode-entity.js';
import { canonicalValue } from './find-entities.js';
import type { BoundGroup, BoundObject } from './object-model.js';
import type { WriteTarget } from './write-errors.js';
import {
  encodeValues,
  entityUrl,
  entryBody,
  resentEntry,
  entryOfType,
  entryUrl,
  withoutAnnotations,
  type Entity,
  type PreparedWrite,
} from './write-payload.js';

/** A request of a write and which part of the record it writes, for its errors. */
export interface PlannedRequest extends BatchRequest {
  target: WriteTarget;
}

export type WritePlan =
  | { kind: 'skip'; result: WriteResult }
  | { kind: 'create'; request: PlannedRequest; values: RecordData }
  | { kind: 'update'; requests: PlannedRequest[]; result: WriteResult };

const JSON_REPRESENTATION = { prefer: 'return=representation' };

function etagHeader(entity: Entity): Record<string, string> {
  const etag = entity['@odata.etag'];
  return typeof etag === 'string' ? { 'if-match': etag } : {};
}

/** The group entries of a create, as the deep insert carries them. */
function inlineEntries(bound: BoundObject, prepared: PreparedWrite): Entity {
  const body: Entity = {};
  for (const { group, type, values } of prepared.entries) {
    const bound_ = bound.groups.get(group.name)!;
    const list = (body[bound_.member] as Entity[] | undefined) ?? [];
    list.push(entryBody(bound_, type, values));
    body[bound_.member] = list;
  }
  return body;
}

/** A complex collection with the written entries merged over what the lookup read. */
function mergedCollection(group: BoundGroup, entity: Entity, written: ReadonlyArray<{ type: string; values: RecordData }>): Entity[] {
  const current = Array.isArray(entity[group.member])
    ? (entity[group.member] as Entity[]).map((entry) => resentEntry(group, withoutAnnotations(entry)))
    : [];
  for (const { type, values } of written) {
    const existing = current.findIndex((entry) => String(entry[group.typeField.name]) === type);
    const merged = { ...(existing >= 0 ? current[existing] : {}), ...entryBody(group, type, values) };
    if (existing >= 0) current[existing] = merged;
    else current.push(merged);
  }
  return current;
}

function createPlan(bound: BoundObject, prepared: PreparedWrite): WritePlan {
  const values = newRecordValues(bound.object, prepared.checked);
  return {
    kind: 'create',
    values,
    request: {
      method: 'POST',
      url: bound.entitySet,
      headers: JSON_REPRESENTATION,
      body: { ...encodeValues(bound.fields, values), ...inlineEntries(bound, prepared) },
      target: {},
    },
  };
}

function updatePlan(bound: BoundObject, prepared: PreparedWrite, entity: Entity): WritePlan {
  const record = decodeEntity(bound, entity);
  const key: RecordData = Object.fromEntries(bound.object.key.map((name) => [name, record[name]]));
  const settable = { ...prepared.checked.settable };
  // The service's key addresses the entity; sent again unchanged it is noise some services refuse.
  for (const part of bound.serviceKey) {
    const field = bound.fields.get(part.name);
    if (Object.hasOwn(settable, part.name) && canonicalValue(field, settable[part.name]) === canonicalValue(field, record[part.name]))
      delete settable[part.name];
  }
  for (const name of bound.object.key) if (Object.hasOwn(settable, name)) key[name] = settable[name];
  const result = writeResult(bound.object, 'updated', key);
  if (prepared.request.onMatch === 'skip') return { kind: 'skip', result: writeResult(bound.object, 'skipped', key) };

  const url = entityUrl(bound, entity);
  const body = encodeValues(bound.fields, settable);
  const entryRequests: PlannedRequest[] = [];
  const complex = new Map<BoundGroup, Array<{ type: string; values: RecordData }>>();
  for (const { group: declared, type, values } of prepared.entries) {
    const group = bound.groups.get(declared.name)!;
    const target = { group: group.group.name, type };
    if (group.kind === 'complex') {
      complex.set(group, [...(complex.get(group) ?? []), { type, values }]);
      continue;
    }
    const existing = entryOfType(group, entity, type);
    if (existing === undefined) {
      entryRequests.push({ method: 'POST', url: `${url}/${group.member}`, body: entryBody(group, type, values), target });
    } else if (Object.keys(values).length > 0) {
      entryRequests.push({
        method: 'PATCH',
        url: entryUrl(group, url, existing),
        headers: etagHeader(existing),
        body: encodeValues(group.fields, values),
        target,
      });
    }
  }
  for (const [group, written] of complex) body[group.member] = mergedCollection(group, entity, written);
  const requests: PlannedRequest[] = [];
  if (Object.keys(body).length > 0) requests.push({ method: 'PATCH', url, headers: etagHeader(entity), body, target: {} });
  requests.push(...entryRequests);
  return { kind: 'update', requests, result };
}

/** The plan of a write whose lookup found `entity` (undefined: nothing). */
export function planWrite(bound: BoundObject, prepared: PreparedWrite, entity: Entity | undefined): WritePlan {
  return entity === undefined ? createPlan(bound, prepared) : updatePlan(bound, prepared, entity);
}

/**
 * The answer of a create, from the entity the service answered with. A service that answers with
 * no entity (an empty body, `return=minimal`, something that is not JSON) names the new entity in
 * `OData-EntityId` or `Location`, whose key predicate gives the key; else the values sent do, when
 * they hold the whole key. A key known from neither is the write's error: created, but which
 * record it is cannot be said.
 */
export function createdResult(bound: BoundObject, values: RecordData, answered: unknown, entityId?: string | null): WriteResult {
  const entity = answered !== null && typeof answered === 'object' && !Array.isArray(answered) ? (answered as Entity) : undefined;
  if (entity !== undefined) return writeResult(bound.object, 'created', { ...values, ...decodeEntity(bound, entity) });
  const fromId = entityId ? keyOfEntityId(bound.serviceKey, entityId) : undefined;
  const key: RecordData = { ...values, ...fromId };
  if (bound.object.key.some((name) => key[name] === undefined || key[name] === null)) {
    throw new ConnectorError(
      'unavailable',
      `${bound.object.name}: system '${bound.systemId}' did not return the created entity (no entity in its answer, no OData-EntityId or Location), so the new record's key is unknown; read it to find it`,
      { details: { system: bound.systemId, object: bound.object.name, outcome: 'created' } },
    );
  }
  return writeResult(bound.object, 'created', key);
}

/** Where a create's answer names the new entity. */
export function entityIdOf(headers: { get(name: string): string | null | undefined }): string | undefined {
  return headers.get('odata-entityid') ?? headers.get('location') ?? undefined;
}
