/**
 * The files an object's path names: the one file of a plain path, or the files a glob matches
 * (picomatch: `*`, `**`, `?`, `[…]`, `{a,b}`), in the order of their paths compared by UTF-16 code
 * unit — the same order on every machine and every run, so a drop folder is read oldest name
 * first when names carry a date or a number.
 *
 * The walk starts at the glob's fixed part (`inbox/` of `inbox/orders-*.csv`), goes no deeper
 * than the glob can match, and passes over hidden entries (the connector's own lock and temporary
 * files start with a dot; a `*` never matches a leading dot), the object's archive folder, and
 * links to folders (never followed, so no loop). A matched link to a file is listed: reading it
 * checks where it points (confinement.ts) and refuses one that leaves the directory.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import picomatch from 'picomatch';

/** Code-unit order of paths, as the files of a glob are read. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function depthOf(pattern: string): number {
  return pattern.split('/').includes('**') ? Number.POSITIVE_INFINITY : pattern.split('/').length;
}

/**
 * The relative paths (with '/') of the files under `directory` that `pattern` matches, sorted;
 * nothing under `exclude` (a folder relative to the directory). A missing start folder matches
 * nothing.
 */
export async function matchingFiles(directory: string, pattern: string, exclude?: string): Promise<string[]> {
  const isMatch = picomatch(pattern, { dot: false });
  const scan = picomatch.scan(pattern);
  const start = scan.isGlob ? scan.base : '';
  const maxDepth = depthOf(pattern);
  const excluded = exclude
    ?.split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');
  const found: string[] = [];
  const walk = async (relative: string, depth: number): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(join(directory, relative), { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (excluded !== undefined && excluded !== '' && (path === excluded || path.startsWith(`${excluded}/`))) continue;
      if (entry.isDirectory()) {
        if (depth < maxDepth) await walk(path, depth + 1);
      } else if ((entry.isFile() || entry.isSymbolicLink()) && isMatch(path)) {
        found.push(path);
      }
    }
  };
  await walk(start, start === '' ? 1 : start.split('/').length + 1);
  return found.sort(comparePaths);
}
