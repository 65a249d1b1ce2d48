/**
 * Many writes of one object, each meaning exactly what `write` means (write-record.ts), with far
 * fewer requests:
 *
 * - The records are looked up a window at a time, one `$filter` per chunk of writes
 *   (find-entities.ts).
 * - Every write of the window that sends something becomes one changeset of one `$batch` (a
 *   create: its POST with the entries inline; an update: its PATCH and its entries' requests), so
 *   each record is written whole or not at all and a failing record fails alone: its answer is its
 *   ConnectorError, the others are kept.
 * - A create refused as a possible conflict (409, or a 5xx: SAP CAP answers a duplicate key so) is
 *   looked up again and stored as an update when the record is there now, as `write` does.
 * - Without `$batch` (connection.batch never, or a service that takes none) the writes are sent one
 *   by one, in order.
 *
 * A window ends before a write whose match repeats one of an earlier write of the window (the same
 * record written twice): it is looked up after the earlier one is stored, so a batch gives what the
 * same writes one after the other would.
 *
 * An error of the whole service (unreachable, a $batch answer that does not say what happened)
 * ends the writing: the writes made so far keep their WriteResult and every write not made answers
 * with that error. Rejects only when nothing was written at all.
 */
import type { WriteResult } from '../connection.js';
import { ConnectorError } from '../connector-error.js';
import { ambiguousMatch } from '../records/write-checks.js';
import { canonicalMatch, findEntitiesOfMany } from './find-entities.js';
import type { BoundObject } from './object-model.js';
import type { PreparedWrite } from './write-payload.js';
import { createdResult, entityIdOf, planWrite, type PlannedRequest, type WritePlan } from './write-plan.js';
import { carryOut, changesetError, mayBeConflict, storeAfterConflict, type WriteScope } from './write-record.js';

export type WriteAnswer = WriteResult | ConnectorError;

/** Writes looked up and sent together. */
const WINDOW = 100;

/** The match of a write as one text, its values canonical: `7` and `'7'` of an Integer are one record. */
function signature(bound: BoundObject, write: PreparedWrite | undefined): string | undefined {
  if (write?.match === undefined) return undefined;
  const match = canonicalMatch(bound, write.match);
  const fields = Object.keys(match).sort();
  return JSON.stringify(fields.map((name) => [name, match[name] ?? null]));
}

/** The end of the window starting at `start`: before the first write whose match repeats one in it. */
function windowEnd(bound: BoundObject, writes: ReadonlyArray<PreparedWrite | undefined>, start: number): number {
  const seen = new Set<string>();
  let end = start;
  while (end < writes.length && end - start < WINDOW) {
    const key = signature(bound, writes[end]);
    if (key !== undefined) {
      if (seen.has(key)) break;
      seen.add(key);
    }
    end += 1;
  }
  return end;
}

/** One write's answer when sent alone; an error of the whole service ends the writing (writeMany). */
async function alone(scope: WriteScope, write: PreparedWrite, plan: WritePlan): Promise<WriteAnswer> {
  try {
    return await carryOut(scope, write, plan);
  } catch (error) {
    if (!(error instanceof ConnectorError)) throw error;
    // No answer from the service at all (unreachable, too slow): nothing more can be written now.
    if ((error.code === 'unavailable' || error.code === 'timeout') && error.details?.status === undefined) throw error;
    return error;
  }
}

export async function writeMany(scope: WriteScope, writes: ReadonlyArray<PreparedWrite | ConnectorError>): Promise<WriteAnswer[]> {
  const answers: Array<WriteAnswer | undefined> = writes.map((write) => (write instanceof ConnectorError ? write : undefined));
  const prepared = writes.map((write) => (write instanceof ConnectorError ? undefined : write));
  for (let start = 0; start < prepared.length; ) {
    const end = windowEnd(scope.bound, prepared, start);
    try {
      await writeWindow(scope, prepared, start, end, answers);
    } catch (error) {
      if (!(error instanceof ConnectorError) || !answers.some((answer) => answer !== undefined && !(answer instanceof ConnectorError)))
        throw error;
      // What was written stays written, and says so; the writes not made carry the service's error.
      return answers.map((answer) => answer ?? error);
    }
    start = end;
  }
  return answers as WriteAnswer[];
}

/** Looks up and sends the writes `start`…`end` (one window), filling in their answers. */
async function writeWindow(
  scope: WriteScope,
  prepared: ReadonlyArray<PreparedWrite | undefined>,
  start: number,
  end: number,
  answers: Array<WriteAnswer | undefined>,
): Promise<void> {
  const window = prepared.slice(start, end);
  const found = await findEntitiesOfMany(scope, window, scope.signal);
  const plans: Array<{ position: number; write: PreparedWrite; plan: WritePlan }> = [];
  window.forEach((write, offset) => {
    const position = start + offset;
    if (write === undefined) return;
    const entities = found[offset]!;
    if (entities.length > 1) {
      answers[position] = ambiguousMatch(scope.bound.object, write);
      return;
    }
    try {
      plans.push({ position, write, plan: planWrite(scope.bound, write, entities[0]) });
    } catch (error) {
      if (!(error instanceof ConnectorError)) throw error;
      answers[position] = error;
    }
  });
  await sendPlans(scope, plans, answers);
}

type Planned = { position: number; write: PreparedWrite; plan: WritePlan };

function requestsOf(plan: WritePlan): PlannedRequest[] {
  return plan.kind === 'create' ? [plan.request] : plan.kind === 'update' ? plan.requests : [];
}

async function sendPlans(scope: WriteScope, plans: readonly Planned[], answers: Array<WriteAnswer | undefined>): Promise<void> {
  const sending = plans.filter(({ plan }) => requestsOf(plan).length > 0);
  for (const { position, plan } of plans) if (plan.kind !== 'create' && requestsOf(plan).length === 0) answers[position] = plan.result;
  const outcomes =
    sending.length > 0 && scope.batch.usable
      ? await scope.batch.send(
          sending.map(({ plan }) => requestsOf(plan)),
          scope.signal,
        )
      : undefined;
  for (const [index, { position, write, plan }] of sending.entries()) {
    const outcome = outcomes?.[index];
    if (outcome === undefined) {
      answers[position] = await alone(scope, write, plan);
      continue;
    }
    // Its outcome unknown: it may have been written, so it is neither sent again nor looked up as a conflict.
    if (outcome instanceof ConnectorError) {
      answers[position] = outcome;
      continue;
    }
    if (outcome.ok) {
      if (plan.kind !== 'create') answers[position] = plan.result;
      else {
        const [answer] = outcome.answers;
        const headers = new Map(Object.entries(answer!.headers));
        try {
          answers[position] = createdResult(scope.bound, plan.values, answer!.body, entityIdOf(headers));
        } catch (error) {
          if (!(error instanceof ConnectorError)) throw error;
          answers[position] = error;
        }
      }
      continue;
    }
    const error = changesetError(scope, outcome);
    if (plan.kind === 'create' && write.match !== undefined && mayBeConflict(error)) {
      try {
        answers[position] = await storeAfterConflict(scope, write, error);
      } catch (again) {
        if (!(again instanceof ConnectorError)) throw again;
        answers[position] = again;
      }
      continue;
    }
    answers[position] = error;
  }
}
