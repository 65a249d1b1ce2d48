/** Finds the definition files (*.yaml, *.yml) under the definitions directories. */
import { readdir, stat } from 'node:fs/promises';
import { join, relative, resolve, isAbsolute } from 'node:path';

export interface DefinitionFile {
  absolutePath: string;
  /** The path shown in problems: relative to the working directory when inside it. */
  displayPath: string;
  /** The definitions directory the file was found under. */
  root: string;
}

const definitionFile = /\.ya?ml$/i;
/** Never searched: dependencies, and hidden files and folders (VCS data, editor swap files). */
const skipped = (name: string) => name === 'node_modules' || name.startsWith('.');

export function displayPath(absolutePath: string, cwd = process.cwd()): string {
  const rel = relative(cwd, absolutePath);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absolutePath;
}

export class DefinitionsPathError extends Error {}

/**
 * Files in a stable order (sorted paths) so that "first definition wins" in duplicate-id reports
 * is the same on every run. A path may name a directory or a single file.
 */
export async function findDefinitionFiles(paths: readonly string[]): Promise<DefinitionFile[]> {
  const files: DefinitionFile[] = [];
  for (const given of paths) {
    const root = resolve(given);
    const info = await stat(root).catch(() => null);
    if (!info) throw new DefinitionsPathError(`${given}: no such file or directory`);
    if (info.isFile()) {
      files.push({ absolutePath: root, displayPath: displayPath(root), root: resolve(root, '..') });
    } else if (info.isDirectory()) {
      for (const absolutePath of await walk(root)) files.push({ absolutePath, displayPath: displayPath(absolutePath), root });
    } else {
      throw new DefinitionsPathError(`${given}: not a file or directory`);
    }
  }
  const seen = new Set<string>();
  return files
    .filter((file) => !seen.has(file.absolutePath) && seen.add(file.absolutePath))
    .sort((a, b) => a.absolutePath.localeCompare(b.absolutePath));
}

async function walk(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(directory, entry.name);
    // Symbolic links to directories are not followed: a link cycle must not hang a reload.
    if (skipped(entry.name)) continue;
    if (entry.isDirectory()) found.push(...(await walk(path)));
    else if ((entry.isFile() || entry.isSymbolicLink()) && definitionFile.test(entry.name)) found.push(path);
  }
  return found;
}
