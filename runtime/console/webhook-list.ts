/**
 * The webhooks the console lists: what each one does and where it is called, never its secrets —
 * only whether it has one, since the console's test dialog adds it for the operator.
 */
import type { Snapshot } from '../../definitions/snapshot.js';
import type { WebhookAction, WebhookDefinition } from '../../definitions/types.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { countPinned } from '../webhooks/log/log-entries.js';
import type { Visibility } from './visibility.js';
import type { DefinitionsPaths } from './definition-list.js';

export interface WebhookSummary {
  id: string;
  name?: string;
  /** The path callers send to. */
  url: string;
  action: WebhookAction;
  sync?: string;
  flow?: string;
  system?: string;
  object?: string;
  query?: string;
  active: boolean;
  /** Whether callers must send the secret (service_webhooksecret or Authorization). */
  hasSecret: boolean;
  /** The signature profile callers sign with, or null. */
  signature: NonNullable<WebhookDefinition['signature']>['profile'] | null;
  /** Log entries pinned (kept past the retention, replayable). */
  pinnedEntries: number;
  file: string;
  line: number;
}

export async function webhookList(
  db: RuntimeDatabase,
  snapshot: Snapshot,
  visible: Visibility,
  paths: DefinitionsPaths,
): Promise<WebhookSummary[]> {
  const pinned = await countPinned(db);
  return [...snapshot.webhooks.values()]
    .filter((entry) => visible.webhook(entry))
    .map(({ definition: d, origin }) => ({
      id: d.id,
      ...(d.name === undefined ? {} : { name: d.name }),
      url: `/api/webhooks/${d.id}`,
      action: d.action,
      ...(d.sync === undefined ? {} : { sync: d.sync }),
      ...(d.flow === undefined ? {} : { flow: d.flow }),
      ...(d.system === undefined ? {} : { system: d.system }),
      ...(d.object === undefined ? {} : { object: d.object }),
      ...(d.query === undefined ? {} : { query: d.query }),
      active: d.active,
      hasSecret: d.secret !== undefined,
      signature: d.signature?.profile ?? null,
      pinnedEntries: pinned.get(d.id) ?? 0,
      file: paths.file(origin.file),
      line: origin.line,
    }));
}
