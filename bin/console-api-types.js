#!/usr/bin/env node
// Writes console/src/api/openapi-types.ts, the console's API types, from the OpenAPI document of
// the runtime (runtime/http/openapi/typescript-types.ts). Run it after changing a route's schema;
// test/unit/console/api-types.test.ts fails until then. `--check` writes nothing and exits 1 when
// the file is stale. A development script: it runs the TypeScript sources through tsx.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

register();
const { consoleApiTypes, consoleApiTypesPath } = await import('../runtime/http/openapi/typescript-types.ts');
const path = join(import.meta.dirname, '..', consoleApiTypesPath);
const text = consoleApiTypes();
let before = '';
try {
  before = readFileSync(path, 'utf8');
} catch {
  // Not written yet.
}
if (process.argv.includes('--check')) {
  if (before !== text) {
    process.stderr.write(`error: ${consoleApiTypesPath} is stale; run node bin/console-api-types.js\n`);
    process.exitCode = 1;
  }
} else if (before !== text) {
  writeFileSync(path, text);
  process.stderr.write(`wrote ${consoleApiTypesPath}\n`);
}
