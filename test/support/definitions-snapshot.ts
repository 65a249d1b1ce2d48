/** Definitions a test writes as YAML text, loaded as the runtime loads a directory of them. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConnectorSpecs } from '../../connectors/index.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import type { Snapshot } from '../../definitions/snapshot.js';

const connectors = await loadConnectorSpecs();

/** The snapshot of `yaml` (one or more documents), written to a fresh directory; throws with the problems when it does not load. */
export async function definitionsSnapshot(yaml: string): Promise<Snapshot> {
  const directory = mkdtempSync(join(tmpdir(), 'syncline-test-definitions-'));
  writeFileSync(join(directory, 'definitions.yaml'), yaml);
  const loaded = await loadDefinitions([directory], { connectors });
  if (!loaded.ok) throw new Error(`the test definitions do not load: ${JSON.stringify(loaded.problems, null, 2)}`);
  return loaded.snapshot;
}
