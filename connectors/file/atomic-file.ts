/**
 * Replacing a file atomically: the new content goes to a temporary file in the same folder (hidden,
 * so no glob picks it up), is flushed to disk (fsync), and is renamed over the original, and then
 * the folder is flushed so the rename itself survives a power cut. A reader opens either the old
 * file or the new one, never half of one; a failure or a crash at any step before the rename
 * leaves the original as it was (and at worst a hidden `.name.*.tmp` to delete).
 *
 * The new file takes the old one's permissions.
 */
import { randomUUID } from 'node:crypto';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Writes everything of `bytes` at the handle's position. */
export async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, null);
    offset += bytesWritten;
  }
}

/** Flushes a folder's entries (a rename in it) to disk; file systems that cannot are left as they are. */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a folder; the rename stands, only its durability waits for the OS.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

export function temporaryPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
}

/**
 * Replaces `target` with what `write` writes to the handle it is given. `beforeRename` runs once the
 * new content is on disk, and may still refuse (the lock lost, the original changed meanwhile):
 * nothing is replaced then.
 */
export async function replaceFile(
  target: string,
  write: (handle: FileHandle) => Promise<void>,
  beforeRename: () => Promise<void> = async () => {},
): Promise<void> {
  const mode = (await stat(target).catch(() => undefined))?.mode;
  const temporary = temporaryPathFor(target);
  const handle = await open(temporary, 'wx', mode === undefined ? 0o666 : mode & 0o7777);
  let renamed = false;
  try {
    try {
      await write(handle);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await beforeRename();
    await rename(temporary, target);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temporary).catch(() => undefined);
  }
  await syncFolder(dirname(target));
}
