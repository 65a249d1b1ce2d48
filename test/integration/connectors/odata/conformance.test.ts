/**
 * The connector conformance suite for the `odata` connector, against SAP CAP serving the CRM
 * (test/support/odata-server.ts): once with the batch format the service is found to take, once
 * with multipart batches, and once without batches (every write request on its own).
 */
import { describeWithODataServer } from '../../../support/odata-server.js';
import { conformanceSuite } from '../conformance.js';
import { odataTarget } from './odata-crm.js';

await describeWithODataServer('odata connector conformance (batch: auto)', {}, (server) => {
  conformanceSuite(odataTarget(server));
});
