/**
 * Resolving the process a queue route starts — a sync, or a flow of syncs — for the calling client,
 * in the order resolve-target.ts uses for systems: the scope, then the allow-list (403 for any id
 * not allowed, so a client never learns which syncs or flows exist outside its list), then
 * existence (404 listing what the client may start).
 *
 * ApiClient allow-lists name syncs only. A flow is allowed when every sync it runs, through nested
 * flows too, is on the list: starting it does nothing the client could not do sync by sync.
 */
import type { Context } from 'koa';
import type { FlowEntry, Snapshot, SyncEntry } from '../../definitions/snapshot.js';
import { HttpProblem } from '../errors.js';
import { requireScope, type Principal } from './auth.js';
import { findIgnoringCase } from './resolve-target.js';

export type ProcessTarget = { kind: 'sync'; id: string; entry: SyncEntry } | { kind: 'flow'; id: string; entry: FlowEntry };

/** A sync (preferred when a flow has the same id) or a flow, by id in any case. */
export function findProcess(snapshot: Snapshot, id: string): ProcessTarget | undefined {
  const sync = findIgnoringCase(snapshot.syncs, id);
  if (sync) return { kind: 'sync', id: sync.definition.id, entry: sync };
  const flow = findIgnoringCase(snapshot.flows, id);
  return flow ? { kind: 'flow', id: flow.definition.id, entry: flow } : undefined;
}

/** Every sync a flow runs, through its nested flows (definitions are checked to have no cycle). */
export function syncsOfFlow(snapshot: Snapshot, flowId: string, seen = new Set<string>()): string[] {
  if (seen.has(flowId)) return [];
  seen.add(flowId);
  const steps = snapshot.flows.get(flowId)?.definition.steps ?? [];
  return steps.flatMap((step) =>
    step.sync !== undefined ? [step.sync] : step.flow !== undefined ? syncsOfFlow(snapshot, step.flow, seen) : [],
  );
}

export function mayStart(principal: Principal, snapshot: Snapshot, target: ProcessTarget): boolean {
  const allowed = principal.syncs;
  if (!allowed) return true;
  if (target.kind === 'sync') return allowed.has(target.id);
  return syncsOfFlow(snapshot, target.id).every((sync) => allowed.has(sync));
}

/**
 * Whether the client may see items of `processId`. A process since removed from the definitions
 * is judged as a sync: visible when on the list (or with no list).
 */
export function mayRead(principal: Principal, snapshot: Snapshot, processId: string): boolean {
  if (!principal.syncs || principal.syncs.has(processId)) return true;
  const flow = snapshot.flows.get(processId);
  return (
    flow !== undefined && !snapshot.syncs.has(processId) && mayStart(principal, snapshot, { kind: 'flow', id: processId, entry: flow })
  );
}

/** The ids the client may start: syncs and flows. */
export function visibleProcesses(principal: Principal, snapshot: Snapshot): string[] {
  const syncs = [...snapshot.syncs.values()].map((entry): ProcessTarget => ({ kind: 'sync', id: entry.definition.id, entry }));
  const flows = [...snapshot.flows.values()].map((entry): ProcessTarget => ({ kind: 'flow', id: entry.definition.id, entry }));
  return [...syncs, ...flows].filter((target) => mayStart(principal, snapshot, target)).map((target) => target.id);
}

/**
 * The process `id` names, which the client may start. Every start route takes syncs and flows
 * alike; for a flow, a source id goes to its first step, a record-store read (run-flow.ts).
 */
export function resolveProcess(ctx: Context, id: string): ProcessTarget {
  const principal = requireScope(ctx, 'queue:write');
  const snapshot = ctx.state.snapshot as Snapshot;
  const target = findProcess(snapshot, id);
  if (!target || !mayStart(principal, snapshot, target)) {
    if (principal.syncs)
      throw new HttpProblem(
        'not-allowed',
        `Client ${principal.id} may not start ${quoted(id)}. It may start: ${visibleProcesses(principal, snapshot).join(', ') || 'nothing'}.`,
      );
  }
  if (!target) {
    throw new HttpProblem(
      'unknown-process',
      `There is no sync or flow ${quoted(id)}. The syncs and flows you may start: ${visibleProcesses(principal, snapshot).join(', ') || 'none'}.`,
    );
  }
  return target;
}

/** An id from the request for a message: quoted, and cut so a huge one does not fill the answer. */
export function quoted(id: string): string {
  return JSON.stringify(id.length > 120 ? `${id.slice(0, 120)}…` : id);
}
