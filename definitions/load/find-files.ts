/**
 * Finds the definition files (*.yaml, *.yml) under the definitions directories, and the test
 * files (*.test.yaml, *.test.yml) that `syncline test` runs: tests live beside the definitions
 * they test, so a test file is never read as a definition.
 *
 * Symbolic links are followed only where they stay inside: a link found while walking a
 * directory whose real path leaves it (a file, or a directory) is not read at all but reported as
 * a problem naming the link — as `${file:..}` refuses such paths (substitute.ts), and as a link
 * named on the command line that leaves its own directory is refused. Reading it would
 * put an arbitrary file of the machine (/etc/shadow, another project's secrets) into error
 * messages, the console and the reload log. A link to a directory inside is not followed: its
 * files are found at their real place, and a link cycle cannot hang a reload.
 */
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, isAbsolute, sep } from 'node:path';

export interface DefinitionFile {
  absolutePath: string;
  /** The path shown in problems: relative to the working directory when inside it. */
  displayPath: string;
  /** The definitions directory the file was found under. */
  root: string;
  /**
   * Where to read the file: its real path, checked to be inside `root`. The same as
   * `absolutePath` unless the file is a symbolic link.
   */
  readPath: string;
  /** Why the file is not read (a link leaving the directory); the loader reports it as a problem. */
  refused?: { code: string; message: string };
}

const yamlFile = /\.ya?ml$/i;
const testFile = /\.test\.ya?ml$/i;

/** A test file of `syncline test` (kind Test): `*.test.yaml` or `*.test.yml`. */
export function isTestFileName(name: string): boolean {
  return testFile.test(name);
}

/** A definition file: `*.yaml` or `*.yml`, except test files. */
export function isDefinitionFileName(name: string): boolean {
  return yamlFile.test(name) && !testFile.test(name);
}

/** Which files a search collects, by name. */
type Wanted = (name: string) => boolean;
type Search = 'definitions' | 'tests';
const wantedBy: Readonly<Record<Search, Wanted>> = { definitions: isDefinitionFileName, tests: isTestFileName };
/** Never searched: dependencies, and hidden files and folders (VCS data, editor swap files). */
const skipped = (name: string) => name === 'node_modules' || name.startsWith('.');

export function displayPath(absolutePath: string, cwd = process.cwd()): string {
  const rel = relative(cwd, absolutePath);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absolutePath;
}

export class DefinitionsPathError extends Error {}

/**
 * Files in a stable order (sorted paths) so that "first definition wins" in duplicate-id reports
 * is the same on every run. A path may name a directory or a single file. A file named on the
 * command line that is itself a symbolic link leaving its own directory is refused as a link
 * found in a walk is: `syncline validate defs/*.yaml` names every link of the directory without
 * anyone having chosen where each leads. Links in the directories above it are followed.
 */
export function findDefinitionFiles(paths: readonly string[]): Promise<DefinitionFile[]> {
  return findFiles(paths, 'definitions');
}

/** The test files under `paths`, found as definition files are (same links rule, same order). */
export function findTestFiles(paths: readonly string[]): Promise<DefinitionFile[]> {
  return findFiles(paths, 'tests');
}

async function findFiles(paths: readonly string[], search: Search): Promise<DefinitionFile[]> {
  const wanted = wantedBy[search];
  const files: DefinitionFile[] = [];
  for (const given of paths) {
    const root = resolve(given);
    const info = await stat(root).catch(() => null);
    if (!info) throw new DefinitionsPathError(`${given}: no such file or directory`);
    if (info.isFile()) {
      // A file named on the command line is read whatever its extension, but a test file is no
      // definition and a definition file no test.
      if (isTestFileName(root) !== (search === 'tests')) continue;
      const directory = dirname(root);
      const readPath = await realpath(root);
      const leaves = (await lstat(root)).isSymbolicLink() && !isInside(readPath, await realpath(directory));
      const refused = leaves
        ? {
            code: 'link-outside',
            message: `this symbolic link leads to a file outside its directory ${directory}, which is not read; copy the file into the directory, point the link at one inside it, or name the file itself`,
          }
        : undefined;
      files.push({
        absolutePath: root,
        displayPath: displayPath(root),
        root: directory,
        readPath: refused ? root : readPath,
        ...(refused ? { refused } : {}),
      });
    } else if (info.isDirectory()) {
      files.push(...(await walk(root, await realpath(root), root, wanted)));
    } else {
      throw new DefinitionsPathError(`${given}: not a file or directory`);
    }
  }
  const seen = new Set<string>();
  return files
    .filter((file) => !seen.has(file.absolutePath) && seen.add(file.absolutePath))
    .sort((a, b) => a.absolutePath.localeCompare(b.absolutePath));
}

/**
 * The files of a directory below the root; one that cannot be listed (no permission) is reported
 * as a problem of its own, in place of the files it may hold, and the rest is still read.
 */
async function walkBelow(
  directory: string,
  realRoot: string,
  root: string,
  wanted: Wanted,
  refusedAs: (readPath: string, refused: DefinitionFile['refused']) => DefinitionFile,
): Promise<DefinitionFile[]> {
  try {
    return await walk(directory, realRoot, root, wanted);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
    return [
      refusedAs(directory, {
        code: 'file-unreadable',
        message: 'this directory cannot be listed (permission denied): make it readable by the user that runs syncline, or move it out',
      }),
    ];
  }
}

async function walk(directory: string, realRoot: string, root: string, wanted: Wanted): Promise<DefinitionFile[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const found: DefinitionFile[] = [];
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (skipped(entry.name)) continue;
    const file = (readPath: string, refused?: DefinitionFile['refused']): DefinitionFile => ({
      absolutePath: path,
      displayPath: displayPath(path),
      root,
      readPath,
      ...(refused ? { refused } : {}),
    });
    if (entry.isDirectory()) found.push(...(await walkBelow(path, realRoot, root, wanted, file)));
    else if (entry.isFile() && wanted(entry.name)) found.push(file(path));
    else if (entry.isSymbolicLink()) {
      const link = await followLink(path, realRoot, root, wanted);
      if (link.refused) found.push(file(path, link.refused));
      else if (link.kind === 'file' && wanted(entry.name)) found.push(file(link.real));
    }
  }
  return found;
}

type Link = { kind: 'file' | 'directory' | 'other'; real: string; refused?: undefined } | { refused: { code: string; message: string } };

/** Where a link leads, or why it is refused. Only links that lead somewhere are judged. */
async function followLink(path: string, realRoot: string, root: string, wanted: Wanted): Promise<Link> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    // A dangling link to a directory is no definition file; one named *.yaml is worth a word.
    if (!wanted(path)) return { kind: 'other', real: path };
    return {
      refused: {
        code: 'file-unreadable',
        message: 'this symbolic link leads to nothing (its target does not exist); remove the link or restore its target',
      },
    };
  }
  const info = await lstat(real);
  const kind = info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
  // A link to a directory is judged by every search (it changes what lies inside); one to a file only by the search that wants it.
  if (kind === 'other' || (kind === 'file' && !wanted(path))) return { kind, real };
  if (!isInside(real, realRoot)) {
    const what = kind === 'file' ? 'a file' : 'a directory';
    return {
      refused: {
        code: 'link-outside',
        message: `this symbolic link leads to ${what} outside the definitions directory ${root}, which is not read; copy the ${kind} into the directory or point the link at one inside it`,
      },
    };
  }
  return { kind, real };
}

/** Whether real path `real` is `realRoot` or under it. */
function isInside(real: string, realRoot: string): boolean {
  return real === realRoot || real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
}
