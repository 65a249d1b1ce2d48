/**
 * The `sql` connector: its spec, and connections to SQLite, PostgreSQL and MariaDB/MySQL systems
 * through Knex. Importing this module loads Knex but no database driver; a driver is loaded when a
 * connection first talks to its database.
 */
import type { SystemDefinition } from '../../definitions/types.js';
import type { Connection, ConnectionContext } from '../connection.js';
import { SqlConnection } from './sql-connection.js';

export { spec } from './spec.js';

export function createConnection(system: SystemDefinition, context: ConnectionContext): Connection {
  return new SqlConnection(system, context);
}
