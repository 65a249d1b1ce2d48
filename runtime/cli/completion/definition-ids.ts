/**
 * The ids of the definitions in a directory, for completion: found quickly and quietly. Only the
 * YAML is parsed — no substitution, no schema, no checks — and each document that says its kind
 * and id gives them; a broken document gives nothing, an unreadable directory nothing at all.
 * Nothing is logged and nothing throws: a completion must never print into the shell's line.
 */
import { isMap, isScalar, type Node } from 'yaml';
import { findDefinitionFiles } from '../../../definitions/load/find-files.js';
import { parseDefinitionFile } from '../../../definitions/load/parse-documents.js';

export type IdKind = 'System' | 'Sync' | 'Webhook' | 'Flow' | 'ApiClient';

export async function definitionIds(directory: string, kinds: readonly IdKind[]): Promise<string[]> {
  try {
    const files = await findDefinitionFiles([directory]);
    const parsed = await Promise.all(files.map((file) => parseDefinitionFile(file)));
    const ids = new Set<string>();
    for (const file of parsed) {
      for (const source of file.documents) {
        const contents = source.document.contents as Node | null;
        if (!isMap(contents)) continue;
        const kind = scalar(contents.get('kind', true));
        const id = scalar(contents.get('id', true));
        if (kind !== undefined && id !== undefined && (kinds as readonly string[]).includes(kind)) ids.add(id);
      }
    }
    return [...ids].sort();
  } catch {
    return [];
  }
}

function scalar(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  const value = node.value;
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
