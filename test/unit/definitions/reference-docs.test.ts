/**
 * The property tables of docs/definitions/ are generated from the kinds' JSON Schemas by
 * `syncline docs`; this test fails when a schema changed and the pages were not regenerated, and
 * checks that the command rewrites only the generated part of a page.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConnectorSpecs } from '../../../connectors/index.js';
import {
  generatedEnd,
  generatedStart,
  renderAllSections,
  renderPropertySection,
  replaceGeneratedSection,
} from '../../../definitions/schema/reference-tables.js';
import { definitionKinds } from '../../../definitions/types.js';
import { projectRoot, runCli } from '../../support/cli-process.js';

const specs = await loadConnectorSpecs();
const referenceDir = join(projectRoot, 'docs', 'definitions');

test('the generated property tables of docs/definitions match the JSON Schemas', () => {
  for (const { page, section } of renderAllSections(specs)) {
    const text = readFileSync(join(referenceDir, page), 'utf8');
    assert.equal(
      text,
      replaceGeneratedSection(text, section, page),
      `docs/definitions/${page} is stale: run \`node bin/syncline-dev.js docs\``,
    );
  }
});

test('every kind has a page, and each table has a row for every top-level property of its schema', () => {
  const sections = renderAllSections(specs);
  assert.equal(sections.length, definitionKinds.length + 1);
  for (const kind of definitionKinds) {
    const schema = JSON.parse(
      readFileSync(
        join(projectRoot, 'definitions', 'schemas', `${kind === 'ApiClient' ? 'api-client' : kind.toLowerCase()}.schema.json`),
        'utf8',
      ),
    ) as { properties: object };
    const section = renderPropertySection(kind, specs);
    for (const name of Object.keys(schema.properties)) assert.match(section, new RegExp(`^\\| \`${name}\``, 'm'), `${kind}: ${name}`);
  }
  const sync = renderPropertySection('Sync', specs);
  assert.match(
    sync,
    /^\| `match\.onMultipleMatches` \| `fail`, `updateFirst`, `updateAll`, `skip` \| `"fail"` \| Several target records found/m,
  );
  assert.match(sync, /^\| `retries\.backoff` \| duration \| `"30s"` \|/m);
  const system = renderPropertySection('System', specs);
  assert.match(system, /^\| `connection\.client` \(required\) \|/m, "the connector's connection schema is part of the System table");
  assert.match(system, /^\| `objects\.<name>\.groups\.<name>\.foreignKey` \(required\) \|/m);
  assert.match(renderPropertySection('Flow', specs), /^\| `steps\[\]\.continueOnError` \| boolean \| `false` \|/m);
});

test('syncline docs rewrites the generated tables and keeps the prose; a page without the markers is an error naming it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncline-docs-'));
  try {
    cpSync(referenceDir, dir, { recursive: true });
    const sync = join(dir, 'sync.md');
    const fresh = readFileSync(sync, 'utf8');
    const stale = fresh.replace(/^\| `batchSize` .*$/m, '| `batchSize` | integer | `1` | an old description |');
    assert.notEqual(stale, fresh);
    writeFileSync(sync, stale);
    const run = await runCli(['docs', '--dir', dir]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /wrote .*sync\.md/);
    assert.doesNotMatch(run.stderr, /wrote .*flow\.md/, 'a page that is fresh is not rewritten');
    assert.equal(readFileSync(sync, 'utf8'), fresh);

    const flow = join(dir, 'flow.md');
    writeFileSync(flow, readFileSync(flow, 'utf8').replace(generatedStart, '').replace(generatedEnd, ''));
    const broken = await runCli(['docs', '--dir', dir]);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /flow\.md has no generated properties section: add the lines/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
