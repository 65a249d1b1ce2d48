/**
 * The `odata` connector: its spec, and connections to OData v4 services through the shared web
 * client (connectors/web). Importing this module makes no request; a connection first talks to its
 * service when an operation needs it, and reads its $metadata then.
 */
import type { SystemDefinition } from '../../definitions/types.js';
import type { Connection, ConnectionContext } from '../connection.js';
import { ODataConnection } from './odata-connection.js';

export { spec } from './spec.js';

export function createConnection(system: SystemDefinition, _context: ConnectionContext): Connection {
  return new ODataConnection(system);
}
