/**
 * A file's version: what changes when it is written (size, modification time, inode — a rename
 * into place gives a new inode even at the same size and second). A read receipt keeps it, so an
 * archive leaves a file changed since its read; a rewrite compares it before it renames, so a
 * write by a program that ignores the lock is not overwritten.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';

/** The version of stats read earlier; undefined for a file that does not exist. */
export function versionOf(stats: Pick<Stats, 'size' | 'mtimeMs' | 'ino'> | undefined): string | undefined {
  return stats === undefined ? undefined : `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
}

/** The version of the file at `path` now; undefined when it does not exist. */
export async function fileVersion(path: string): Promise<string | undefined> {
  return versionOf(await stat(path).catch(() => undefined));
}
