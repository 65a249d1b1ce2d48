/**
 * Semantic checks of Flows: each step names one existing sync or flow, nested flows form no cycle,
 * and a flow starts with a record-store read (where its incoming data waits).
 */
import type { FlowDefinition, SyncDefinition } from '../types.js';
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
 * Reports each cycle of nested flows once, at the step that closes it, and then checks that every
 * flow outside a cycle begins with a record-store read.
 */
export function checkFlowGraph(context: CheckContext): void {
  // A flow that failed its schema may have no list of steps: its own problems are reported.
  const flows = new Map([...context.registry.Flow].filter(([, flow]) => flow.valid));
  const state = new Map<string, 'visiting' | 'done'>();
  const inCycle = new Set<string>();
  const visit = (id: string, trail: string[]): void => {
    const flow = flows.get(id);
    if (!flow || state.get(id) === 'done') return;
    state.set(id, 'visiting');
    flow.definition.steps.forEach((step, index) => {
      if (step.flow === undefined || !flows.has(step.flow)) return;
      if (state.get(step.flow) === 'visiting') {
        const cycle = [...trail.slice(trail.indexOf(step.flow)), id, step.flow];
        for (const member of cycle) inCycle.add(member);
        context.report(
          flow.source,
          ['steps', index, 'flow'],
          'flow-cycle',
          `steps[${index}].flow: flows call each other in a cycle: ${cycle.join(' → ')}`,
        );
      } else {
        visit(step.flow, [...trail, id]);
      }
    });
    state.set(id, 'done');
  };
  for (const id of [...flows.keys()].sort()) visit(id, []);

  for (const [id, flow] of flows) {
    if (inCycle.has(id)) continue;
    const first = firstSync(context, id, new Set());
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

function firstSync(context: CheckContext, flowId: string, seen: Set<string>): Registered<SyncDefinition> | undefined {
  const flow = context.usable('Flow', flowId);
  const step = flow?.definition.steps[0];
  if (!step || seen.has(flowId)) return undefined;
  seen.add(flowId);
  if (step.sync !== undefined) return context.usable('Sync', step.sync);
  return step.flow === undefined ? undefined : firstSync(context, step.flow, seen);
}
