/** `syncline schema [--out FILE]` — the JSON Schema editors use to complete and check definitions. */
import { writeFile } from 'node:fs/promises';
import { loadConnectorSpecs } from '../../connectors/index.js';
import { buildEditorSchema } from '../../definitions/schema/editor-schema.js';

export async function schemaCommand(options: { out?: string }): Promise<number> {
  const text = `${JSON.stringify(buildEditorSchema(await loadConnectorSpecs()), null, 2)}\n`;
  if (!options.out) {
    process.stdout.write(text);
    return 0;
  }
  try {
    await writeFile(options.out, text);
  } catch (error) {
    process.stderr.write(`error: cannot write ${options.out}: ${(error as Error).message}\n`);
    return 1;
  }
  process.stderr.write(`wrote ${options.out}\n`);
  return 0;
}
