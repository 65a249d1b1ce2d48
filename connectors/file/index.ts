/**
 * The `file` connector: its spec, and connections to directories of CSV, JSON and NDJSON files.
 * Importing this module reads no file; a connection touches its directory when an operation needs it.
 */
import type { SystemDefinition } from '../../definitions/types.js';
import type { Connection, ConnectionContext } from '../connection.js';
import { FileConnection } from './file-connection.js';

export { spec } from './spec.js';

export function createConnection(system: SystemDefinition, context: ConnectionContext): Connection {
  return new FileConnection(system, context);
}
