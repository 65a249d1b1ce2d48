/**
 * How many records a sync's source holds, for the progress bar of `syncline run` (and of its dry
 * run): an object source counted under the filter the run reads with — the sync's own `where` AND
 * the WhereClause (source-pages.ts), AND for a sync with a cursor the condition of its mark
 * (sync-cursor.ts), read from the runtime database `db` when there is one; undefined when that cannot be known cheaply (a query, the
 * record store, a flow, a connector without counting, a count that would read the records
 * themselves) or the count fails (the run itself then reports the problem properly), and the line
 * goes without a bar.
 */
import type { ConnectionPool } from '../../connectors/connection-pool.js';
import type { Expression } from '../../definitions/expression/index.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { ActionParam } from '../queue/queue-item.js';
import { paramPlaceholders, paramsObject } from '../sync/action-params.js';
import type { RuntimeDatabase } from '../database/open-database.js';
import { andFilters } from '../sync/source-pages.js';
import { CursorRun } from '../sync/sync-cursor.js';

export async function sourceTotal(
  snapshot: Snapshot,
  processId: string,
  connections: ConnectionPool,
  actionParams: readonly ActionParam[],
  whereClause: Expression | undefined,
  db?: RuntimeDatabase,
): Promise<number | undefined> {
  const sync = snapshot.syncs.get(processId);
  const source = sync?.definition.source;
  if (sync === undefined || source?.system === undefined || source.object === undefined) return undefined;
  const system = snapshot.systems.get(source.system);
  if (system === undefined || !system.capabilities.count) return undefined;
  try {
    const environment = { snapshot, connections, ...(db === undefined ? {} : { db }) };
    const cursor = await CursorRun.open(environment, sync, { processId, actionParams }, false);
    const filter = andFilters(andFilters(sync.where, whereClause), cursor?.filter);
    const placeholders = paramPlaceholders(paramsObject(actionParams));
    const connection = await connections.get(system.definition);
    if (connection.countsCheaply?.(source.object, filter === undefined ? {} : { filter }) === false) return undefined;
    return await connection.count(source.object, {
      ...(filter === undefined ? {} : { filter }),
      placeholders: cursor?.placeholders(placeholders) ?? placeholders,
    });
  } catch {
    return undefined;
  }
}
