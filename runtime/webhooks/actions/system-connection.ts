/** The system a system-based action reads or writes, and its shared connection. */
import type { Connection } from '../../../connectors/connection.js';
import type { SystemEntry } from '../../../definitions/snapshot.js';
import { HttpProblem } from '../../errors.js';
import type { WebhookCall } from '../webhook-call.js';

export async function systemOf(call: WebhookCall, id: string): Promise<{ system: SystemEntry; connection: Connection }> {
  const system = call.snapshot.systems.get(id);
  // A checked snapshot always has it; a webhook run against another snapshot might not.
  if (system === undefined)
    throw new HttpProblem('action-not-possible', `Webhook ${call.entry.definition.id}: system '${id}' is not defined.`);
  return { system, connection: await call.connections.get(system.definition) };
}

/** All pages of a read, up to `limit` records. */
export async function collect<T>(pages: AsyncIterable<T[]>, limit = Number.POSITIVE_INFINITY): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) {
    all.push(...page);
    if (all.length >= limit) break;
  }
  return all.slice(0, limit);
}
