/**
 * How many records a sync's source holds, for the progress bar of `syncline run` (and of its dry
 * run): an object source counted under the filter the run reads with — the sync's own `where` AND
 * the WhereClause (source-pages.ts); undefined when that cannot be known cheaply (a query, the
 * record store, a flow, a connector without counting, a count that would read the records
 * themselves) or the count fails (the run itself then reports the problem properly), and the line
 * goes without a bar.
 */
import type { ConnectionPool } from '../../connectors/connection-pool.js';
import type { Expression } from '../../definitions/expression/index.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { ActionParam } from '../queue/queue-item.js';
import { paramPlaceholders, paramsObject } from '../sync/action-params.js';
import { andFilters } from '../sync/source-pages.js';

export async function sourceTotal(
  snapshot: Snapshot,
  processId: string,
  connections: ConnectionPool,
  actionParams: readonly ActionParam[],
  whereClause: Expression | undefined,
): Promise<number | undefined> {
  const sync = snapshot.syncs.get(processId);
  const source = sync?.definition.source;
  if (sync === undefined || source?.system === undefined || source.object === undefined) return undefined;
  const system = snapshot.systems.get(source.system);
  if (system === undefined || !system.capabilities.count) return undefined;
  const filter = andFilters(sync.where, whereClause);
  try {
    const connection = await connections.get(system.definition);
    if (connection.countsCheaply?.(source.object, filter === undefined ? {} : { filter }) === false) return undefined;
    return await connection.count(source.object, {
      ...(filter === undefined ? {} : { filter }),
      placeholders: paramPlaceholders(paramsObject(actionParams)),
    });
  } catch {
    return undefined;
  }
}
