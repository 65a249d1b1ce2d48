/**
 * Archiving the files a sync has finished with (Connection.settle): after a run that read the
 * object whole and ended Complete with no failed record, each file the read consumed to its end is
 * moved into the object's `archive.moveTo` folder (created when missing, confined like every
 * path). A file changed since it was read (a producer appended to it, a writer rewrote it) is left
 * where it is, to be read again by the next run.
 *
 * A move never overwrites: the file keeps its name when it is free in the archive, else gets the
 * first free `name.1.ext`, `name.2.ext`, …; the name is claimed with link(2), which fails when the
 * name is taken, so two processes archiving at once cannot overwrite each other either. (Where the
 * file system has no hard links, an exclusive copy stands in for the link.) The move holds the
 * file's write lock, so it does not pull a file from under a writer. A symbolic link (to a file
 * inside the directory: confinement.ts) is archived as the link itself: the file it names may be
 * another object's data and stays where it is.
 */
import { constants } from 'node:fs';
import { copyFile, link, lstat, unlink } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { ReadReceipt } from '../connection.js';
import { confinedFile, confinedFolder } from './confinement.js';
import { ioError, type Place } from './file-errors.js';
import { withFileLock } from './file-lock.js';
import { fileVersion } from './file-version.js';
import type { ReadScope } from './read-records.js';

/** The name a file takes in the archive when `name` is taken `attempt` times (0: its own). */
export function archiveName(name: string, attempt: number): string {
  if (attempt === 0) return name;
  const extension = extname(name);
  return `${name.slice(0, name.length - extension.length)}.${attempt}${extension}`;
}

/** Claims a free name in `folder` for `source`'s content; the name taken. */
async function claimName(source: string, folder: string, name: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const destination = join(folder, archiveName(name, attempt));
    try {
      await link(source, destination);
      return destination;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'ENOSYS') throw error;
    }
    try {
      await copyFile(source, destination, constants.COPYFILE_EXCL);
      return destination;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** Moves the files of `receipt` into the object's archive folder; the relative paths of those moved. */
export async function archiveFiles(scope: ReadScope, receipt: ReadReceipt, lockWaitMs: number): Promise<string[]> {
  const { object } = scope;
  const moveTo = object.file.archiveTo;
  if (moveTo === undefined || receipt.completed.length === 0) return [];
  const place: Place = { systemId: scope.systemId, object: object.name };
  const folder = await confinedFolder(scope.directory, moveTo, place);
  const moved: string[] = [];
  for (const { source, version } of receipt.completed) {
    const here: Place = { ...place, file: source };
    const file = await confinedFile(scope.directory, source, place);
    if (!file.exists) continue;
    await withFileLock(file.path, lockWaitMs, here, async () => {
      if ((await fileVersion(file.path)) !== version) return;
      try {
        // link(2) on Linux names the link itself, not its target: the link moves, the file stays.
        const entry = join(scope.directory, source);
        const moving = (await lstat(entry)).isSymbolicLink() ? entry : file.path;
        await claimName(moving, folder, basename(source));
        await unlink(moving);
      } catch (error) {
        throw ioError(here, `moving the file to ${moveTo}`, error);
      }
      moved.push(source);
    });
  }
  return moved;
}
