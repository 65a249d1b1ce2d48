/**
 * The connector conformance suite for the `odata` connector, against SAP CAP serving the CRM
 * (test/support/odata-server.ts), each run on a service of its own: with the `$batch` format the
 * connector finds the service takes (JSON), with multipart batches, and without batches (every
 * write request on its own).
 */
import { describeWithODataServer } from '../../../support/odata-server.js';
import { conformanceSuite } from '../conformance.js';
import { odataTarget } from './odata-crm.js';

for (const batch of ['auto', 'multipart', 'never'] as const) {
  await describeWithODataServer(`odata connector conformance (batch: ${batch})`, {}, (server) => {
    conformanceSuite(odataTarget(server, { batch }));
  });
}
