/**
 * Where a problem's file is, as CI annotations and code scanning want it: relative to the
 * repository's root with forward slashes. On GitHub Actions that root is GITHUB_WORKSPACE (a step
 * may run in a sub-directory with `working-directory:`); elsewhere it is the working directory.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** The directory report paths are relative to. */
export function reportRoot(env: NodeJS.ProcessEnv = process.env): string {
  const workspace = env.GITHUB_WORKSPACE;
  return workspace !== undefined && workspace !== '' ? resolve(workspace) : process.cwd();
}

/**
 * `file` (as a problem names it: relative to the working directory, or absolute) relative to
 * `root`; a file outside the root keeps its absolute path, since no relative one would find it.
 */
export function repositoryPath(file: string, root: string): string {
  const absolute = resolve(file);
  const inside = relative(root, absolute);
  if (inside === '') return '.';
  if (inside.startsWith('..') || isAbsolute(inside)) return absolute.split(sep).join('/');
  return inside.split(sep).join('/');
}
