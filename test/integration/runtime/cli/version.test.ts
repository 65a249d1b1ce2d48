/** `syncline --version` tells the version package.json declares, as an installed package's users ask it. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { projectRoot, runCli } from '../../../support/cli-process.js';

describe('syncline --version', () => {
  test('prints the version of package.json and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = await runCli([flag]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `${version}\n`);
    }
  });
});
