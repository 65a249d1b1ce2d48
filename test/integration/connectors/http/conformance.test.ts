/**
 * The connector conformance suite for the `http` connector against a real REST server:
 * json-server 0.17, started for the suite in a child process over the CRM fixture.
 */
import { describeWithJsonServer } from '../../../support/json-server.js';
import { conformanceSuite } from '../conformance.js';
import { crmDb, crmJsonServerOptions, jsonServerTarget } from './json-server-crm.js';

await describeWithJsonServer('http connector conformance on json-server', crmDb, crmJsonServerOptions, (server) => {
  conformanceSuite(jsonServerTarget(server));
});
