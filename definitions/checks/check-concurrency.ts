/**
 * Concurrency groups: syncs and flows that name one `concurrency.group` share one limit, so they
 * must say the same limit and the same onLimit. The first member (in file order) sets the terms;
 * every other member that differs is reported at the setting it differs in (or at its group, when
 * it left that setting to its default).
 */
import { positionOf } from '../load/source-document.js';
import type { ConcurrencyPolicy, FlowDefinition, SyncDefinition } from '../types.js';
import type { CheckContext, Registered } from './check-context.js';

type Member = Registered<SyncDefinition> | Registered<FlowDefinition>;

export function checkConcurrencyGroups(context: CheckContext): void {
  const members = [...context.registry.Sync.values(), ...context.registry.Flow.values()].filter(
    (entry) => entry.valid && entry.definition.concurrency?.group !== undefined,
  );
  const first = new Map<string, Member>();
  for (const member of members) {
    const policy = member.definition.concurrency;
    const group = policy.group!;
    const leader = first.get(group);
    if (leader === undefined) {
      first.set(group, member);
      continue;
    }
    const terms = leader.definition.concurrency;
    const at = positionOf(leader.source, ['concurrency', 'group']);
    const where = `${leader.definition.kind} '${leader.definition.id}' (${leader.source.file}:${at.line}:${at.column})`;
    for (const setting of ['limit', 'onLimit'] as const satisfies ReadonlyArray<keyof ConcurrencyPolicy>) {
      if (policy[setting] === terms[setting]) continue;
      const path = context.written(member.source, ['concurrency', setting]) ? ['concurrency', setting] : ['concurrency', 'group'];
      context.report(
        member.source,
        path,
        'concurrency-group',
        `concurrency.${setting}: group '${group}' has ${setting} ${terms[setting]} in ${where}, this ${member.definition.kind.toLowerCase()} ${policy[setting]}${path[1] === 'group' ? ' (the default)' : ''}; members of a group share one limit, so give ${setting}: ${terms[setting]} here too`,
      );
    }
  }
}
