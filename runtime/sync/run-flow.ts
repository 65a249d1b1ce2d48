/**
 * One run of a flow (DESIGN §7): its steps in order, each a sync or a nested flow, each with the
 * start's ActionParams. The SourceId and WhereClause go to the first step only: it reads the record
 * store, where a webhook left the incoming data; later steps run in full.
 *
 * A start with a SourceId (StartProcessAdHoc, a webhook's startSync) is for that one stored record.
 * When the first step does not find it (an unknown GUID, one already used, one of another sync's
 * store, or one its where leaves out), the flow ends there, Complete, with the step's note and one
 * saying the later steps did not run: the start was for a record that is not there, and running the
 * rest in full would do work nobody asked for. Nothing is retried, as for a sync's ad-hoc start.
 *
 * A failing step stops the flow unless it has continueOnError; the flow is then Failed, retryable
 * when that step's failure was. Statistics are summed over the steps; errors name their step.
 *
 * After a Complete run the flow deletes the record-store entries its first step read — except
 * those whose records failed in that step, which stay for another run to try again (a demanding
 * operator would rather see a record twice than lose it). Nothing is deleted after a Failed run,
 * nor for a step that failed under continueOnError. A nested flow does not delete on its own: its
 * entries go with the outermost flow's success, so a later failing step keeps them all.
 */
import type { FlowEntry } from '../../definitions/snapshot.js';
import type { ProcessStart, RunEnvironment, RunOutcome } from '../execution/process-run.js';
import type { NewItemError } from '../queue/complete.js';
import type { ItemStatistics } from '../queue/queue-item.js';
import { deleteRecords } from '../record-store/delete-records.js';
import { abortMessage } from './run-report.js';
import { runSync } from './run-sync.js';

interface FlowRun extends RunOutcome {
  /** Record-store entries to delete once the outermost flow is Complete. */
  guids: string[];
}

function add(total: ItemStatistics, more: Readonly<ItemStatistics>): ItemStatistics {
  return {
    read: total.read + more.read,
    created: total.created + more.created,
    updated: total.updated + more.updated,
    skipped: total.skipped + more.skipped,
    failed: total.failed + more.failed,
    ...(total.unchanged === undefined && more.unchanged === undefined ? {} : { unchanged: (total.unchanged ?? 0) + (more.unchanged ?? 0) }),
  };
}

async function runSteps(environment: RunEnvironment, start: ProcessStart, flow: FlowEntry, trail: readonly string[]): Promise<FlowRun> {
  const { snapshot } = environment;
  let statistics: ItemStatistics = { read: 0, created: 0, updated: 0, skipped: 0, failed: 0 };
  const errors: NewItemError[] = [];
  const guids: string[] = [];
  const steps = flow.definition.steps;
  for (const [index, step] of steps.entries()) {
    const label = `step ${index + 1} (${step.name ?? (step.sync !== undefined ? `sync ${step.sync}` : `flow ${step.flow}`)})`;
    const prefixed = (error: NewItemError): NewItemError => ({ ...error, message: `${label}: ${error.message}` });
    if (start.signal?.aborted) {
      return {
        status: 'Failed',
        statistics,
        errors: [{ message: `${label}: ${abortMessage(start.signal)}` }, ...errors],
        retryable: true,
        guids: [],
      };
    }
    const before = statistics;
    const stepStart: ProcessStart = {
      processId: step.sync ?? step.flow!,
      actionParams: start.actionParams ?? null,
      sourceId: index === 0 ? (start.sourceId ?? null) : null,
      whereClause: index === 0 ? (start.whereClause ?? null) : null,
      ...(start.signal === undefined ? {} : { signal: start.signal }),
      ...(start.onProgress === undefined ? {} : { onProgress: (progress) => start.onProgress!(add(before, progress)) }),
    };
    let outcome: RunOutcome;
    let stepGuids: string[] = [];
    if (step.sync !== undefined) {
      const sync = snapshot.syncs.get(step.sync);
      if (sync === undefined) {
        outcome = {
          status: 'Failed',
          statistics: { read: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
          errors: [{ message: `there is no sync '${step.sync}'` }],
          retryable: false,
        };
      } else {
        const ran = await runSync(environment, stepStart, sync);
        const failed = new Set(ran.recordStore.failed);
        // Only the first step reads the flow's own incoming records (check-flow.ts makes it a record-store read).
        if (index === 0) stepGuids = ran.recordStore.read.filter((guid) => !failed.has(guid));
        outcome = ran;
      }
    } else {
      const nested = snapshot.flows.get(step.flow!);
      if (nested === undefined || trail.includes(step.flow!)) {
        outcome = {
          status: 'Failed',
          statistics: { read: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
          errors: [{ message: nested === undefined ? `there is no flow '${step.flow}'` : `flow '${step.flow}' calls itself` }],
          retryable: false,
        };
      } else {
        const ran = await runSteps(environment, stepStart, nested, [...trail, flow.definition.id]);
        stepGuids = ran.guids;
        outcome = ran;
      }
    }
    statistics = add(statistics, outcome.statistics);
    if (index === 0 && stepStart.sourceId && outcome.status === 'Complete' && outcome.statistics.read === 0) {
      errors.push(...outcome.errors.map(prefixed));
      if (steps.length > 1)
        errors.push({ message: `${label} found no record for source id '${stepStart.sourceId}', so the later steps did not run` });
      return { status: 'Complete', statistics, errors, retryable: false, guids: [] };
    }
    if (outcome.status === 'Failed' && !step.continueOnError) {
      const [reason, ...rest] = outcome.errors.map(prefixed);
      return {
        status: 'Failed',
        statistics,
        errors: [reason ?? { message: `${label}: failed` }, ...errors, ...rest],
        retryable: outcome.retryable,
        guids: [],
      };
    }
    errors.push(...outcome.errors.map(prefixed));
    if (outcome.status === 'Complete') guids.push(...stepGuids);
  }
  return { status: 'Complete', statistics, errors, retryable: false, guids };
}

/** Runs `flow` for `start`, then cleans the record store after success; never throws for a failed run. */
export async function runFlow(environment: RunEnvironment, start: ProcessStart, flow: FlowEntry): Promise<RunOutcome> {
  const { guids, ...outcome } = await runSteps(environment, start, flow, []);
  if (outcome.status === 'Complete' && guids.length > 0) {
    try {
      await deleteRecords(environment.db, guids);
    } catch (error) {
      // The records were synced; they only stay behind. Said, so nobody wonders why they are read again.
      environment.log?.warn({ flow: flow.definition.id, err: error }, `flow ${flow.definition.id}: record-store entries were not deleted`);
      outcome.errors.push({
        message: `the flow went through, but its ${guids.length} record-store entries could not be deleted: ${(error as Error).message}`,
      });
    }
  }
  start.onProgress?.(outcome.statistics);
  return outcome;
}
