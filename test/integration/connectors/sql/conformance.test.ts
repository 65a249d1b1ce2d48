/**
 * The connector conformance suite for the `sql` connector, on SQLite always and on PostgreSQL and
 * MariaDB where their servers answer (required in CI). Each engine gets a fresh database.
 */
import * as sqlConnector from '../../../../connectors/sql/index.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { conformanceSuite } from '../conformance.js';

await describeEachDatabase('sql connector conformance', (database) => conformanceSuite(database, sqlConnector));
