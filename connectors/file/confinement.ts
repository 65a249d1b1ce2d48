/**
 * Paths confined to the configured roots. A System's directory, with every symbolic link resolved,
 * must lie inside one of the allowed roots (ConnectionContext.fileRoots, from SYNCLINE_FILE_ROOTS;
 * by default the definitions directory), and every file the connector opens, creates or moves
 * must lie inside that directory, again after resolving links — a symbolic link to /etc/passwd
 * dropped into an inbox is refused, whether it is named by the path or matched by a glob.
 *
 * The check comes before a byte is read or written, and files are then opened by their resolved
 * path (without following a link in its last part), so what was checked is what is opened.
 * Refusals are 'unavailable', naming the System and the setting to change — never a path of the
 * server (a message reaches HTTP callers): files are named relative to the directory.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { ConnectionContext } from '../connection.js';
import { fileError, ioError, systemReason, type Place } from './file-errors.js';

/** Flags to open an already confined file for reading: no link followed in its last part. */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** Whether `path` is `parent` or lies inside it (both absolute and resolved). */
export function isInside(path: string, parent: string): boolean {
  if (path === parent) return true;
  return path.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

export interface Confinement {
  systemId: string;
  /** The directory made absolute from the definitions directory (links not yet resolved). */
  absolute: string;
  /** The allowed roots, absolute. */
  roots: readonly string[];
}

export function confinementOf(systemId: string, directory: string, context: ConnectionContext): Confinement {
  const base = resolve(context.baseDirectory);
  const roots = (context.fileRoots ?? [base]).map((root) => resolve(base, root));
  return { systemId, absolute: isAbsolute(directory) ? resolve(directory) : resolve(base, directory), roots };
}

/**
 * The System's directory with its links resolved, once it is known to exist, to be a directory
 * and to lie inside an allowed root; otherwise 'unavailable' saying which and why.
 */
export async function realDirectory(confinement: Confinement): Promise<string> {
  const place: Place = { systemId: confinement.systemId };
  let real: string;
  try {
    real = await realpath(confinement.absolute);
  } catch (error) {
    throw fileError(
      'unavailable',
      place,
      `its connection.directory cannot be used: ${systemReason(error)}; create it, or change connection.directory`,
      error,
    );
  }
  const roots = await Promise.all(confinement.roots.map((root) => realpath(root).catch(() => undefined)));
  if (!roots.some((root) => root !== undefined && isInside(real, root))) {
    // The paths go to the log only (as the cause): an HTTP caller is not told the server's paths.
    const where = new Error(`directory ${real}; roots ${confinement.roots.join(', ')}`);
    throw fileError(
      'unavailable',
      place,
      'its connection.directory is outside the directories files may be read and written in; add it to SYNCLINE_FILE_ROOTS, or change connection.directory',
      where,
    );
  }
  const stats = await lstat(real).catch((error: unknown) => {
    throw ioError(place, 'reading its directory', error);
  });
  if (!stats.isDirectory()) {
    throw fileError('unavailable', place, 'its connection.directory is not a directory');
  }
  return real;
}

export interface ConfinedFile {
  /** Relative to the directory, for messages and receipts. */
  relative: string;
  /** The resolved path to open, inside the directory. */
  path: string;
  exists: boolean;
}

/**
 * A file of the directory (`relative` already free of '..' and absolute forms: check-system.ts):
 * its resolved path when it exists, else where it would be created — either way inside the
 * directory, or 'unavailable'. An existing one must be a regular file.
 */
export async function confinedFile(directory: string, relative: string, place: Place): Promise<ConfinedFile> {
  const here: Place = { ...place, file: relative };
  const candidate = join(directory, relative);
  if (!isInside(candidate, directory)) throw fileError('unavailable', here, 'the path leaves the directory; refused');
  let real: string;
  try {
    real = await realpath(candidate);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(here, 'resolving the file', error);
    // Not there (or a dangling link): where it would be created must be inside the directory too.
    const link = await lstat(candidate).catch(() => undefined);
    if (link?.isSymbolicLink()) throw fileError('unavailable', here, 'it is a symbolic link to a file that does not exist; refused');
    const parent = await realpath(dirname(candidate)).catch(() => undefined);
    if (parent !== undefined && !isInside(parent, directory)) {
      throw fileError('unavailable', here, 'its folder is a symbolic link to outside the directory; refused');
    }
    return { relative, path: parent === undefined ? candidate : join(parent, basename(candidate)), exists: false };
  }
  if (!isInside(real, directory)) {
    throw fileError('unavailable', here, 'it is a symbolic link to outside the directory; refused (links may only point inside it)');
  }
  const stats = await lstat(real).catch((error: unknown) => {
    throw ioError(here, 'reading the file', error);
  });
  if (!stats.isFile()) throw fileError('unavailable', here, 'it is not a regular file');
  return { relative, path: real, exists: true };
}

/**
 * A folder of the directory, created when missing, confined as a file is. The deepest part that
 * exists is resolved and checked before anything is created, so a link out of the directory on the
 * way (`done` → /elsewhere, moveTo `done/2024`) never gets a folder made outside; the result is
 * checked again after creating, in case a part was swapped in between.
 */
export async function confinedFolder(directory: string, relative: string, place: Place): Promise<string> {
  const here: Place = { ...place, file: relative };
  const candidate = join(directory, relative);
  if (!isInside(candidate, directory)) throw fileError('unavailable', here, 'the path leaves the directory; refused');
  const outside = () => fileError('unavailable', here, 'it is a symbolic link to outside the directory; refused');
  try {
    let existing = candidate;
    let real = await realpath(existing).catch(() => undefined);
    while (real === undefined && existing !== directory) {
      existing = dirname(existing);
      real = await realpath(existing).catch(() => undefined);
    }
    if (real === undefined || !isInside(real, directory)) throw outside();
    if (existing !== candidate) await mkdir(candidate, { recursive: true });
    const made = await realpath(candidate);
    if (!isInside(made, directory)) throw outside();
    if (!(await lstat(made)).isDirectory()) throw fileError('unavailable', here, 'it is not a directory');
    return made;
  } catch (error) {
    throw ioError(here, 'preparing the folder', error);
  }
}
