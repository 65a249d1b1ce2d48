/**
 * The connector conformance suite for the `http` connector against two REST servers:
 *
 * - json-server 0.17 (a real one, in a child process): offset and page paging, X-Total-Count,
 *   `_sort`/`_order` and field filters, which narrow what is fetched;
 * - the fixture server of our own: a cursor in the body and absolute Link headers, and filter
 *   parameters it ignores — every answer must be exact all the same.
 */
import { after, before, describe } from 'node:test';
import type { FixtureServer } from '../../../support/rest-fixture-server.js';
import { describeWithJsonServer } from '../../../support/json-server.js';
import { conformanceSuite } from '../conformance.js';
import { startCrmFixture, fixtureTarget } from './fixture-crm.js';
import { crmDb, crmJsonServerOptions, jsonServerTarget } from './json-server-crm.js';

await describeWithJsonServer('http connector conformance on json-server', crmDb, crmJsonServerOptions, (server) => {
  conformanceSuite(jsonServerTarget(server));
});

describe('http connector conformance on a cursor and Link API that ignores filter parameters', () => {
  let fixture: { server: FixtureServer; db: Record<string, Array<Record<string, unknown>>> } | undefined;
  before(async () => {
    fixture = await startCrmFixture();
  });
  after(() => fixture?.server.close());
  conformanceSuite(fixtureTarget(() => fixture!));
});
