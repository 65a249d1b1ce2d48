/**
 * What a console client may see of the definitions. The allow-lists keep the meaning the rest of
 * the API gives them (resolve-process.ts, resolve-target.ts): `systems` names the systems a
 * client may use, `syncs` the syncs — and a flow is visible when every sync it runs is. A webhook
 * is visible when the sync, flow and system it touches all are: its id opens its URL, and a client
 * must not learn the entry points of processes it may not start.
 *
 * ApiClients are visible only to a client without any allow-list (the admin token among them):
 * who may do what is not for a client that is itself restricted.
 */
import type { Snapshot, WebhookEntry } from '../../definitions/snapshot.js';
import type { Problem } from '../../definitions/problem.js';
import { definitionKinds, type DefinitionKind } from '../../definitions/types.js';
import type { Visibility } from '../console/visibility.js';
import type { Principal } from './auth.js';
import { mayRead, mayStart } from './resolve-process.js';

export class ConsoleVisibility implements Visibility {
  constructor(
    readonly principal: Principal,
    readonly snapshot: Snapshot,
  ) {}

  /** Whether the client has an allow-list at all. */
  get restricted(): boolean {
    return this.principal.systems !== undefined || this.principal.syncs !== undefined;
  }

  system(id: string): boolean {
    return this.principal.systems === undefined || this.principal.systems.has(id);
  }

  sync(id: string): boolean {
    return this.principal.syncs === undefined || this.principal.syncs.has(id);
  }

  flow(id: string): boolean {
    const entry = this.snapshot.flows.get(id);
    // A flow the snapshot does not hold (yet) cannot be judged by its steps: hidden from a restricted client.
    if (!entry) return this.principal.syncs === undefined;
    return mayStart(this.principal, this.snapshot, { kind: 'flow', id, entry });
  }

  webhook(entry: WebhookEntry): boolean {
    const { sync, flow, system } = entry.definition;
    return (
      (sync === undefined || this.sync(sync)) && (flow === undefined || this.flow(flow)) && (system === undefined || this.system(system))
    );
  }

  apiClients(): boolean {
    return !this.restricted;
  }

  /** Whether the definition `kind`/`id` of the current snapshot is visible. */
  definition(kind: DefinitionKind, id: string): boolean {
    switch (kind) {
      case 'System':
        return this.system(id);
      case 'Sync':
        return this.sync(id);
      case 'Flow':
        return this.flow(id);
      case 'Webhook': {
        const entry = this.snapshot.webhooks.get(id);
        return entry === undefined ? !this.restricted : this.webhook(entry);
      }
      case 'ApiClient':
        return this.apiClients();
    }
  }

  /**
   * Whether a reload problem is shown: one that belongs to a definition the client may not see is
   * left out. A problem of no known definition (a YAML syntax error, an empty directory) is shown:
   * it names a file and a position, never another definition's content.
   */
  problem(problem: Problem): boolean {
    if (problem.kind === undefined || problem.id === undefined) return true;
    if (!isKind(problem.kind)) return !this.restricted;
    return this.definition(problem.kind, problem.id);
  }

  /**
   * The process ids whose queue items the client may count: with a sync allow-list, its syncs and
   * the flows it may start (as GetAction judges an item, mayRead); otherwise every process (undefined).
   */
  processIds(): string[] | undefined {
    if (this.principal.syncs === undefined) return undefined;
    const ids = new Set(this.principal.syncs);
    for (const id of this.snapshot.flows.keys()) if (mayRead(this.principal, this.snapshot, id)) ids.add(id);
    return [...ids];
  }
}

const kinds: ReadonlySet<string> = new Set(definitionKinds);

function isKind(kind: string): kind is DefinitionKind {
  return kinds.has(kind);
}
