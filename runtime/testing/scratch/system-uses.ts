/**
 * Which objects and queries of which systems a sync, flow or webhook may touch, read from the
 * definitions alone: a sync's source and target, a flow's steps (through nested flows), a webhook's
 * own system, object or query and the sync or flow it starts. A case whose process touches
 * something no scratch database can stand in for fails before it runs, saying what and why, so it
 * neither passes nor fails for a reason that is not in the definitions under test.
 */
import type { Snapshot } from '../../../definitions/snapshot.js';

export interface SystemUse {
  system: string;
  kind: 'object' | 'query';
  name: string;
  /** Who uses it: `sync a-to-b (its source)`. */
  by: string;
}

export function syncUses(snapshot: Snapshot, syncId: string): SystemUse[] {
  const sync = snapshot.syncs.get(syncId)?.definition;
  if (sync === undefined) return [];
  const uses: SystemUse[] = [];
  const { source, target } = sync;
  if (source.system !== undefined && source.object !== undefined)
    uses.push({ system: source.system, kind: 'object', name: source.object, by: `sync ${syncId} (its source)` });
  if (source.system !== undefined && source.query !== undefined)
    uses.push({ system: source.system, kind: 'query', name: source.query, by: `sync ${syncId} (its source)` });
  uses.push({ system: target.system, kind: 'object', name: target.object, by: `sync ${syncId} (its target)` });
  return uses;
}

export function flowUses(snapshot: Snapshot, flowId: string, seen = new Set<string>()): SystemUse[] {
  if (seen.has(flowId)) return [];
  seen.add(flowId);
  return (snapshot.flows.get(flowId)?.definition.steps ?? []).flatMap((step) =>
    step.sync !== undefined ? syncUses(snapshot, step.sync) : step.flow !== undefined ? flowUses(snapshot, step.flow, seen) : [],
  );
}

export function webhookUses(snapshot: Snapshot, webhookId: string): SystemUse[] {
  const webhook = snapshot.webhooks.get(webhookId)?.definition;
  if (webhook === undefined) return [];
  const uses: SystemUse[] = [];
  const by = `webhook ${webhookId}`;
  if (webhook.system !== undefined && webhook.object !== undefined)
    uses.push({ system: webhook.system, kind: 'object', name: webhook.object, by });
  if (webhook.system !== undefined && webhook.query !== undefined)
    uses.push({ system: webhook.system, kind: 'query', name: webhook.query, by });
  if (webhook.sync !== undefined) uses.push(...syncUses(snapshot, webhook.sync));
  if (webhook.flow !== undefined) uses.push(...flowUses(snapshot, webhook.flow));
  return uses;
}

/** What each use that has no stand-in cannot do, one message per use. */
export function refusedUses(
  uses: readonly SystemUse[],
  refusal: (systemId: string, kind: 'object' | 'query', name: string) => string | undefined,
): string[] {
  const messages: string[] = [];
  for (const use of uses) {
    const why = refusal(use.system, use.kind, use.name);
    if (why !== undefined)
      messages.push(
        `${use.by} uses ${use.kind} ${use.name} of system ${use.system}, which no scratch SQLite database can stand in for: ${why}`,
      );
  }
  return [...new Set(messages)];
}
