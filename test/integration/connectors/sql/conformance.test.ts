/**
 * The connector conformance suite for the `sql` connector, on SQLite always and on PostgreSQL and
 * MariaDB where their servers answer (required in CI), then its free queries. Each engine gets a
 * fresh database.
 */
import { describeEachDatabase } from '../../../support/databases.js';
import { conformanceSuite } from '../conformance.js';
import { queryConformance } from './query-conformance.js';
import { sqlTarget } from './sql-crm.js';

await describeEachDatabase('sql connector conformance', (database) => {
  conformanceSuite(sqlTarget(database));
  queryConformance(database);
});
