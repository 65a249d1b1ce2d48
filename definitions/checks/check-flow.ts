/**
 * Semantic checks of Flows: each step names one existing sync or flow, nested flows form no cycle,
 * and a flow starts with a record-store read (where its incoming data waits).
 */
import type { FlowDefinition, SyncDefinition } from '../types.js';
import { positionOf } from '../load/source-document.js';
import type { CheckContext, Registered } from './check-context.js';

export function checkFlow(context: CheckContext, { definition, source }: Registered<FlowDefinition>): boolean {
  const before = context.errors;
  definition.steps.forEach((step, index) => {
    const path = ['steps', index];
    if ((step.sync === undefined) === (step.flow === undefined)) {
      context.report(source, path, 'step', `steps[${index}]: give exactly one of sync and flow`);
    } else if (step.sync !== undefined) {
      context.resolve('Sync', step.sync, source, [...path, 'sync']);
    } else if (step.flow !== undefined) {
      context.resolve('Flow', step.flow, source, [...path, 'flow']);
    }
  });
  return context.errors === before;
}

/**
 * Most levels flows nest. Deeper chains are no one's intent, and every walk over nested flows — the
 * API's allow-list check, a run — goes one level per step: 2,000 levels answered 500 on the API.
 */
export const maxFlowDepth = 32;

/**
 * Reports each cycle of nested flows once, at the step that closes it, a flow nesting flows more than
 * maxFlowDepth levels, and then checks that every flow outside a cycle begins with a record-store
 * read. Every walk here keeps its own stack, so a chain of thousands of flows is reported, not a
 * stack overflow.
 */
export function checkFlowGraph(context: CheckContext): void {
  // A flow that failed its schema may have no list of steps: its own problems are reported.
  const flows = new Map([...context.registry.Flow].filter(([, flow]) => flow.valid));
  const nested = (id: string) =>
    flows.get(id)!.definition.steps.flatMap((step) => (step.flow !== undefined && flows.has(step.flow) ? [step.flow] : []));
  const heights = flowHeights(flows, nested);
  reportDepth(context, flows, nested, heights);
  // Only flows left without a height are in a cycle or lead into one.
  const inCycle = reportCycles(context, flows, (id) => !heights.has(id));

  for (const [id, flow] of flows) {
    if (inCycle.has(id)) continue;
    const first = firstSync(context, id);
    if (first && !first.definition.source.recordStore) {
      context.report(
        flow.source,
        ['steps', 0],
        'flow-first-step',
        `steps[0]: a flow starts with a record-store read, but sync '${first.definition.id}' reads ${first.definition.source.system ?? 'a system'}; set source.recordStore: true on the first sync`,
      );
    }
  }
}

type Flows = ReadonlyMap<string, Registered<FlowDefinition>>;

/**
 * Each flow's levels of nesting (1: it runs syncs only), leaves first (Kahn's order); a flow in a
 * cycle, or calling one, gets none.
 */
function flowHeights(flows: Flows, nested: (id: string) => string[]): Map<string, number> {
  const waiting = new Map<string, number>();
  const callers = new Map<string, string[]>();
  for (const id of flows.keys()) {
    const children = new Set(nested(id));
    waiting.set(id, children.size);
    for (const child of children) {
      const known = callers.get(child);
      if (known === undefined) callers.set(child, [id]);
      else known.push(id);
    }
  }
  const heights = new Map<string, number>();
  const ready = [...waiting].filter(([, count]) => count === 0).map(([id]) => id);
  for (const id of ready) heights.set(id, 1);
  while (ready.length > 0) {
    const id = ready.pop()!;
    for (const caller of callers.get(id) ?? []) {
      heights.set(caller, Math.max(heights.get(caller) ?? 0, heights.get(id)! + 1));
      const left = waiting.get(caller)! - 1;
      waiting.set(caller, left);
      if (left === 0) ready.push(caller);
    }
  }
  // A caller of a flow in a cycle got a height from its other steps before the cycle blocked it.
  for (const [id, left] of waiting) if (left > 0) heights.delete(id);
  return heights;
}

/** Reports each flow nesting too deep that no flow nesting too deep calls: the top of the chain. */
function reportDepth(context: CheckContext, flows: Flows, nested: (id: string) => string[], heights: ReadonlyMap<string, number>): void {
  const tooDeep = (id: string) => (heights.get(id) ?? 0) > maxFlowDepth;
  const calledByTooDeep = new Set([...flows.keys()].filter(tooDeep).flatMap((id) => nested(id).filter(tooDeep)));
  for (const [id, flow] of flows) {
    if (!tooDeep(id) || calledByTooDeep.has(id)) continue;
    // The deepest chain, down the deepest step each time.
    const chain = [id];
    for (let at = id; heights.get(at)! > 1; ) {
      at = nested(at).reduce((deepest, child) => (heights.get(child)! > heights.get(deepest)! ? child : deepest));
      chain.push(at);
    }
    const shown = chain.length > 6 ? [...chain.slice(0, 3), '…', ...chain.slice(-2)] : chain;
    context.report(
      flow.source,
      ['steps'],
      'flow-depth',
      `steps: flows nest ${chain.length} levels deep here (${shown.join(' → ')}); flows nest at most ${maxFlowDepth} levels: run the inner flows' syncs as steps of fewer flows`,
    );
  }
}

/** Reports each cycle once, at the step that closes it; answers the flows in a cycle. */
function reportCycles(context: CheckContext, flows: Flows, mayCycle: (id: string) => boolean): Set<string> {
  const state = new Map<string, 'visiting' | 'done'>();
  const inCycle = new Set<string>();
  for (const root of [...flows.keys()].filter(mayCycle).sort()) {
    if (state.has(root)) continue;
    state.set(root, 'visiting');
    const stack = [{ id: root, next: 0 }];
    while (stack.length > 0) {
      const frame = stack.at(-1)!;
      const steps = flows.get(frame.id)!.definition.steps;
      if (frame.next >= steps.length) {
        state.set(frame.id, 'done');
        stack.pop();
        continue;
      }
      const index = frame.next++;
      const step = steps[index]!.flow;
      if (step === undefined || !flows.has(step)) continue;
      if (state.get(step) === 'visiting') {
        const trail = stack.map((entry) => entry.id);
        const cycle = [...trail.slice(trail.indexOf(step)), step];
        for (const member of cycle) inCycle.add(member);
        context.report(
          flows.get(frame.id)!.source,
          ['steps', index, 'flow'],
          'flow-cycle',
          `steps[${index}].flow: flows call each other in a cycle: ${cycle.join(' → ')}`,
        );
      } else if (!state.has(step)) {
        state.set(step, 'visiting');
        stack.push({ id: step, next: 0 });
      }
    }
  }
  return inCycle;
}

/** The sync a flow runs first, down the first steps of its nested flows. */
function firstSync(context: CheckContext, flowId: string): Registered<SyncDefinition> | undefined {
  const seen = new Set<string>();
  for (let id: string | undefined = flowId; id !== undefined && !seen.has(id); ) {
    seen.add(id);
    const step: FlowDefinition['steps'][number] | undefined = context.usable('Flow', id)?.definition.steps[0];
    if (!step) return undefined;
    if (step.sync !== undefined) return context.usable('Sync', step.sync);
    id = step.flow;
  }
  return undefined;
}

/**
 * Syncs and flows are started, scheduled, queued and allowed by id alike, and the API finds an id in
 * any case: a flow sharing a sync's id (in any case) could never run — the sync ran in its place.
 */
export function checkProcessIds(context: CheckContext): void {
  const syncs = new Map([...context.registry.Sync.keys()].map((id) => [id.toLowerCase(), id]));
  for (const [id, flow] of context.registry.Flow) {
    const sync = syncs.get(id.toLowerCase());
    if (sync === undefined) continue;
    const other = context.registry.Sync.get(sync)!.source;
    const at = positionOf(other, ['id']);
    context.report(
      flow.source,
      ['id'],
      'duplicate-id',
      `Flow '${id}' has the id of Sync '${sync}' (${other.file}:${at.line}:${at.column}); syncs and flows are started and queued by id alike, in any case, so they cannot share one: rename one of them`,
    );
  }
}
