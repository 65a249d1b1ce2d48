/**
 * The `http` connector: its spec, and connections to REST/JSON APIs through the shared web client
 * (connectors/web). Importing this module loads no more than Node's own fetch needs.
 */
import type { SystemDefinition } from '../../definitions/types.js';
import type { Connection, ConnectionContext } from '../connection.js';
import { HttpConnection } from './http-connection.js';

export { spec } from './spec.js';

export function createConnection(system: SystemDefinition, _context: ConnectionContext): Connection {
  return new HttpConnection(system);
}
