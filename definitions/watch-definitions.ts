/**
 * Hot reload: chokidar watches the definitions directories; after a quiet period (debounce) the
 * whole set is loaded again. A valid result is swapped in atomically; an invalid one is rejected
 * whole and the old snapshot keeps serving. Reloads never overlap: a change arriving during a
 * reload schedules one more reload after it.
 */
import { relative, resolve, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { loadDefinitions, type LoadOptions } from './load-definitions.js';
import { isDefinitionFileName } from './load/find-files.js';
import type { SnapshotHolder } from './snapshot-holder.js';

export interface WatchOptions extends LoadOptions {
  /** Quiet time after the last file event before reloading. Editors write in bursts. At least `minimumDebounceMs`. */
  debounceMs?: number;
}

export const defaultDebounceMs = 75;
/**
 * chokidar reports the first change of a file and drops further changes to it for the next 50 ms
 * (leading edge only). A reload sooner than that could read a half-written file and then never
 * hear of the rest of the write, so the quiet time is never shorter.
 */
export const minimumDebounceMs = 60;

export interface DefinitionsWatcher {
  holder: SnapshotHolder;
  /** Resolves when the watcher is ready to see changes. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Not watched below a definitions directory: dependencies, VCS data, hidden folders and files (editors' temporary copies). */
const hiddenSegment = /(^|[/\\])(node_modules|\.[^/\\]+)([/\\]|$)/;

export function watchDefinitions(paths: readonly string[], holder: SnapshotHolder, options: WatchOptions): DefinitionsWatcher {
  const debounceMs = Math.max(options.debounceMs ?? defaultDebounceMs, minimumDebounceMs);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const reload = async (): Promise<void> => {
    const started = performance.now();
    const result = await loadDefinitions(paths, options).catch((error: unknown) => ({
      ok: false as const,
      problems: [
        { file: paths.join(', '), line: 1, column: 1, code: 'reload-failed', message: `reload failed: ${(error as Error).message}` },
      ],
    }));
    if (closed) return;
    const duration = performance.now() - started;
    if (result.ok) {
      holder.swap(result.snapshot, duration, result.problems);
    } else {
      holder.reject(result.problems, duration);
    }
  };

  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = reload().finally(() => {
      running = undefined;
      if (again && !closed) {
        again = false;
        schedule();
      }
    });
  };
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(run, debounceMs);
  };

  const roots = paths.map((path) => resolve(path));
  const dataFile = /\.(sqlite3?|db|log)(-wal|-shm|-journal)?$|\.partial$/i;
  // Only the part below a watched root counts: a root given as ../defs or under ~/.config must
  // not have every one of its files ignored.
  const belowRoot = (path: string): string => {
    const absolute = resolve(path);
    const root = roots.find((r) => absolute === r || absolute.startsWith(r.endsWith(sep) ? r : r + sep));
    return root === undefined ? absolute : relative(root, absolute);
  };
  const watcher: FSWatcher = watch(roots, {
    ignoreInitial: true,
    // A link is seen as itself: the loader refuses one leading outside (find-files.ts), so what
    // lies behind it is neither read nor watched.
    followSymlinks: false,
    // Data files often live beside definitions (the quickstart's SQLite files do): they change on
    // every write, and telling them apart by name spares chokidar an lstat per change. Test files
    // (*.test.yaml) are no definitions: editing one changes nothing served.
    ignored: (path, stats) =>
      hiddenSegment.test(belowRoot(path)) || dataFile.test(path) || (!!stats?.isFile() && !isDefinitionFileName(path)),
  });
  watcher.on('all', (event, path) => {
    // Other files are ignored above, so a new or removed entry of another name is a directory or
    // a link (to a directory, or leading outside), which changes what the loader finds.
    if (isDefinitionFileName(path) || event !== 'change') schedule();
  });
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    holder,
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
      await running;
    },
  };
}
