/**
 * Where the installed package is and which version it is. The runtime runs compiled from
 * `dist/` (a copy of the source tree) or, in development, from the sources themselves, so files
 * of the package (package.json, examples) are found by walking up from this module to the
 * directory holding Syncline's package.json, not by a fixed number of `../`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  name?: string;
  version?: string;
  homepage?: string;
}

function findRoot(): { root: string; manifest: Manifest } {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, 'package.json');
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as Manifest;
      if (manifest.name === 'syncline') return { root: directory, manifest };
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`Syncline's package.json was not found above ${fileURLToPath(import.meta.url)}`);
    directory = parent;
  }
}

let found: { root: string; manifest: Manifest } | undefined;

/** The directory of the package: the checkout, or node_modules/syncline where it is installed. */
export function packageRoot(): string {
  found ??= findRoot();
  return found.root;
}

/** The version package.json declares. */
export function packageVersion(): string {
  found ??= findRoot();
  return found.manifest.version ?? '0.0.0';
}

/** The home page package.json names, if it names one. */
export function packageHomepage(): string | undefined {
  found ??= findRoot();
  return found.manifest.homepage;
}
