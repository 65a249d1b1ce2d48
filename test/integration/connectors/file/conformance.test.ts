/**
 * The connector conformance suite for the `file` connector, once per format: CSV, JSON and NDJSON,
 * each on a fresh directory holding the CRM fixture.
 */
import { describe } from 'node:test';
import { conformanceSuite } from '../conformance.js';
import { fileTarget, type Format } from './file-crm.js';

for (const format of ['csv', 'json', 'ndjson'] as const satisfies readonly Format[]) {
  describe(`file connector conformance (${format})`, () => {
    conformanceSuite(fileTarget(format));
  });
}
