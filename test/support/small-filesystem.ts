/**
 * A filesystem of a test's own that can be filled up: a small tmpfs mounted on a temporary folder,
 * so that a runtime database file on it meets a real full disk (ENOSPC, SQLITE_FULL) — not a
 * setting that imitates one. Mounting needs root (or CAP_SYS_ADMIN); `smallFilesystemUnavailable()`
 * tries once and says why it cannot be done here, and the caller skips or fails as databases.ts does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SmallFilesystem {
  /** Where it is mounted. */
  dir: string;
  /** Writes a filler file until the filesystem has no byte left. */
  fill(): Promise<void>;
  /** Deletes the filler file again. */
  free(): Promise<void>;
  /** Unmounts it and removes the folder. */
  remove(): Promise<void>;
}

export async function mountSmallFilesystem(size = '2m'): Promise<SmallFilesystem> {
  const dir = await mkdtemp(join(tmpdir(), 'syncline-small-fs-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  } catch (error) {
    await rmdir(dir);
    throw error;
  }
  const filler = join(dir, 'filler');
  return {
    dir,
    async fill() {
      const file = await open(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024);
      try {
        for (;;) await file.write(chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        // Smaller pieces into what the last chunk did not fit.
        const byte = Buffer.alloc(512);
        await (async () => {
          for (;;) await file.write(byte);
        })().catch((last: NodeJS.ErrnoException) => {
          if (last.code !== 'ENOSPC') throw last;
        });
      } finally {
        await file.close();
      }
    },
    async free() {
      await rm(filler, { force: true });
    },
    async remove() {
      await run('umount', [dir]);
      await rmdir(dir);
    },
  };
}

/** Why no small filesystem can be mounted here; undefined when one can. */
export async function smallFilesystemUnavailable(): Promise<string | undefined> {
  try {
    const filesystem = await mountSmallFilesystem('64k');
    await filesystem.remove();
    return undefined;
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message?: string };
    return `cannot mount a tmpfs to fill up (${(stderr || message || String(error)).trim()}); it needs root`;
  }
}
