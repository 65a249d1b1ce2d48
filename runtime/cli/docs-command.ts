/**
 * `syncline docs [--dir DIR]` — rewrites the generated property tables of the definition
 * reference (docs/definitions/*.md) from the kinds' JSON Schemas, leaving the pages' prose and
 * examples as they are. test/unit/definitions/reference-docs.test.ts fails when they are stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConnectorSpecs } from '../../connectors/index.js';
import { renderAllSections, replaceGeneratedSection } from '../../definitions/schema/reference-tables.js';

/** docs/definitions of this checkout, wherever the command is run from. */
export const defaultReferenceDir = resolve(import.meta.dirname, '../../docs/definitions');

export async function docsCommand(options: { dir?: string }): Promise<number> {
  const dir = options.dir ?? defaultReferenceDir;
  const specs = await loadConnectorSpecs();
  for (const { page, section } of renderAllSections(specs)) {
    const path = join(dir, page);
    try {
      const before = await readFile(path, 'utf8');
      const after = replaceGeneratedSection(before, section, path);
      if (after === before) continue;
      await writeFile(path, after);
      process.stderr.write(`wrote ${path}\n`);
    } catch (error) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      return 1;
    }
  }
  return 0;
}
