/**
 * What the console's lists may show to the client asking: the lists (definitions, schedules,
 * webhooks, reload problems) take it as an argument, and the HTTP layer answers it from the
 * client's allow-lists (runtime/http/console-visibility.ts), so these lists need nothing of HTTP.
 */
import type { WebhookEntry } from '../../definitions/snapshot.js';
import type { Problem } from '../../definitions/problem.js';
import type { DefinitionKind } from '../../definitions/types.js';

export interface Visibility {
  system(id: string): boolean;
  sync(id: string): boolean;
  flow(id: string): boolean;
  webhook(entry: WebhookEntry): boolean;
  apiClients(): boolean;
  /** Whether the definition `kind`/`id` of the current snapshot is visible. */
  definition(kind: DefinitionKind, id: string): boolean;
  /** Whether a reload problem is shown (one of a hidden definition is not). */
  problem(problem: Problem): boolean;
}
