/**
 * Settings that need something of a system's connector are refused when the connector's spec does
 * not declare it, at the setting, when the definitions load — not on the first run or call:
 * - a Sync's `source.order` and a webhook's `order` need `order` of the system they read
 *   (a webhook reading through a sync: that sync's source system);
 * - a webhook's `paging` needs `limit` and `skip` of the system it reads;
 * - a Sync's `source.cursor` needs `filterPushDown` of its source system: an incremental run
 *   that had to read every record to filter them in memory would save nothing.
 * The connection routes refuse GETDATA_LIMIT, SKIP and ORDER the same way at request time
 * (runtime/http/require-capability.ts); definitions are checked against the specs they are loaded
 * with, so a new connector is held to what it declares from its first System.
 */
import type { ConnectorCapabilities, ConnectorSpecs } from '../connector-spec.js';
import type { PathSegment, SourceDocument } from '../load/source-document.js';
import type { SystemDefinition } from '../types.js';
import type { CheckContext } from './check-context.js';

type Capability = keyof ConnectorCapabilities;

/** What each capability lets a definition do, for the message. */
const purposes: Partial<Record<Capability, string>> = {
  order: 'sort the records it reads',
  limit: 'read a page of a given size',
  skip: 'start a page at an offset',
  filterPushDown: 'have the system itself filter the records it reads',
};

export function checkCapabilities(context: CheckContext, connectors: ConnectorSpecs): void {
  const systemOf = (id: string | undefined): SystemDefinition | undefined => context.usable('System', id)?.definition;
  const require = (
    source: SourceDocument,
    path: readonly PathSegment[],
    system: SystemDefinition | undefined,
    capability: Capability,
    setting: string,
  ): void => {
    const spec = system === undefined ? undefined : connectors.get(system.connector);
    if (system === undefined || spec === undefined || spec.capabilities[capability]) return;
    context.report(
      source,
      path,
      'unsupported-capability',
      `${setting}: system '${system.id}' uses the ${system.connector} connector, which cannot ${purposes[capability]} (its spec lacks the '${capability}' capability); remove ${setting}, or read from a system whose connector can`,
    );
  };

  for (const { definition, source, valid } of context.registry.Sync.values()) {
    if (!valid || definition.source.object === undefined || definition.source.order === undefined) continue;
    require(source, ['source', 'order'], systemOf(definition.source.system), 'order', 'source.order');
  }
  for (const { definition, source, valid } of context.registry.Sync.values()) {
    if (!valid || definition.source.cursor === undefined || definition.source.recordStore) continue;
    require(source, ['source', 'cursor'], systemOf(definition.source.system), 'filterPushDown', 'source.cursor');
  }
  for (const { definition, source, valid } of context.registry.Webhook.values()) {
    if (!valid) continue;
    const sync = context.usable('Sync', definition.sync)?.definition;
    const read = systemOf(definition.system ?? sync?.source.system);
    if (definition.order !== undefined) require(source, ['order'], read, 'order', 'order');
    if (definition.paging !== undefined) {
      require(source, ['paging'], read, 'limit', 'paging');
      require(source, ['paging'], read, 'skip', 'paging');
    }
  }
}
