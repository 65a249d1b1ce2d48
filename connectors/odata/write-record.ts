/**
 * Creating or updating one record with its group entries (write-plan.ts says what is sent).
 *
 * The lookup and the create are made atomic per key by the service itself: a POST of a key that
 * exists is refused — with 409 by the standard, with 500 by SAP CAP on SQLite — and then the record
 * is looked up again; found now (a concurrent writer created it), the write is stored as an update
 * of it. Found nothing, the refusal is the answer. An update's requests go in one changeset where
 * the service takes `$batch` (connection.batch), so the record and its group entries are written
 * together or not at all; elsewhere they are sent one by one, the record first.
 */
import type { WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { ambiguousMatch } from '../records/write-checks.js';
import type { WebClient } from '../web/index.js';
import type { BatchSender } from './batch/batch-sender.js';
import type { ChangesetOutcome } from './batch/batch-parts.js';
import { findEntities } from './find-entities.js';
import type { BoundObject } from './object-model.js';
import { refusedWrite } from './write-errors.js';
import type { PreparedWrite } from './write-payload.js';
import { createdResult, entityIdOf, planWrite, type PlannedRequest, type WritePlan } from './write-plan.js';

export interface WriteScope {
  web: WebClient;
  bound: BoundObject;
  batch: BatchSender;
  signal?: AbortSignal;
}

/** A single request of a write, answered with its JSON body (undefined when it has none that parses) and the entity id it names; a refusal becomes the write's error in our words. */
async function sendOne(scope: WriteScope, request: PlannedRequest): Promise<{ body: unknown; entityId: string | undefined }> {
  const response = await scope.web.request({
    method: request.method,
    path: request.url,
    ...(request.body === undefined ? {} : { json: request.body }),
    ...(request.headers === undefined ? {} : { headers: request.headers }),
    ...(scope.signal ? { signal: scope.signal } : {}),
  });
  if (!response.ok) {
    let body: unknown;
    try {
      body = JSON.parse(response.text());
    } catch {
      body = undefined;
    }
    throw refusedWrite(scope.bound, response.status, body, response.failure().cause, request.target);
  }
  let body: unknown;
  try {
    body = response.text().trim() === '' ? undefined : response.json();
  } catch {
    // The write was made (2xx): a body that is not JSON changes nothing of that.
    body = undefined;
  }
  return { body, entityId: entityIdOf(response.headers) };
}

/** The error of a changeset that failed. */
export function changesetError(
  scope: Pick<WriteScope, 'web' | 'bound'>,
  outcome: Extract<ChangesetOutcome, { ok: false }>,
): ConnectorError {
  const { failure, request } = outcome;
  const cause = scope.web.innerAnswer(request.method, request.url, failure.status, failure.text);
  return refusedWrite(scope.bound, failure.status, failure.body, cause, (request as Partial<PlannedRequest>).target ?? {});
}

/** Whether a refused create may have met a record created meanwhile: worth a second look. */
export function mayBeConflict(error: unknown): boolean {
  if (!(error instanceof ConnectorError)) return false;
  const status = error.details?.status;
  return typeof status === 'number' && (status === 409 || status >= 500);
}

/** Sends an update's requests: one changeset where batches are taken, else one by one. */
async function sendUpdate(scope: WriteScope, requests: readonly PlannedRequest[]): Promise<void> {
  if (requests.length > 1 && scope.batch.usable) {
    const outcomes = await scope.batch.send([requests], scope.signal);
    if (outcomes !== undefined) {
      const outcome = outcomes[0]!;
      if (outcome instanceof ConnectorError) throw outcome;
      if (!outcome.ok) throw changesetError(scope, outcome);
      return;
    }
  }
  for (const request of requests) await sendOne(scope, request);
}

/** Carries out a plan; a create refused as a possible conflict is looked up again once (`retry`). */
export async function carryOut(scope: WriteScope, prepared: PreparedWrite, plan: WritePlan, retry = true): Promise<WriteResult> {
  switch (plan.kind) {
    case 'skip':
      return plan.result;
    case 'update':
      await sendUpdate(scope, plan.requests);
      return plan.result;
    case 'create':
      try {
        const answer = await sendOne(scope, plan.request);
        return createdResult(scope.bound, plan.values, answer.body, answer.entityId);
      } catch (error) {
        if (!retry || prepared.match === undefined || !mayBeConflict(error)) throw error;
        return storeAfterConflict(scope, prepared, error);
      }
  }
}

/** A create refused as a possible conflict: looked up again, and stored as an update of what is there now. */
export async function storeAfterConflict(scope: WriteScope, prepared: PreparedWrite, refusal: unknown): Promise<WriteResult> {
  const found = await findEntities(scope, prepared, scope.signal);
  if (found.length === 0) throw refusal;
  if (found.length > 1) throw ambiguousMatch(scope.bound.object, prepared);
  return carryOut(scope, prepared, planWrite(scope.bound, prepared, found[0]), false);
}

/** Stores a write checked by `prepareWrite` (write-payload.ts). */
export async function writeRecord(scope: WriteScope, prepared: PreparedWrite): Promise<WriteResult> {
  const found = await findEntities(scope, prepared, scope.signal);
  if (found.length > 1) throw ambiguousMatch(scope.bound.object, prepared);
  return carryOut(scope, prepared, planWrite(scope.bound, prepared, found[0]));
}
