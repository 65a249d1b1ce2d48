/**
 * Can the system be reached? One trivial statement on a pooled connection: it proves the driver
 * loads, the server (or file) is there, the credentials work and the database exists. Failures are
 * ConnectorError('unavailable') with the reason in words (refused, host not found, authentication,
 * no such database, missing file), never the driver's message.
 */
import type { Knex } from 'knex';
import { ConnectorError } from '../connector-error.js';
import { toConnectorError } from './database-errors.js';

export async function checkDatabase(knex: () => Knex, systemId: string): Promise<void> {
  try {
    await knex().raw('SELECT 1');
  } catch (error) {
    const mapped = toConnectorError(error, { systemId, action: 'checking the connection' });
    if (mapped instanceof ConnectorError) throw mapped;
    throw new ConnectorError('unavailable', `system '${systemId}': the database does not answer as expected`, { cause: error });
  }
}
