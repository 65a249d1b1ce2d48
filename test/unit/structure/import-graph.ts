/**
 * The project's import graph folded to folders: which folder's files import which other folder's.
 * The structure test checks it (no cycles, the layer order) and `npx tsx test/unit/structure/print-folder-graph.ts`
 * prints it. Imports are read with TypeScript's own pre-processor (the same reading the compiler
 * does), type-only imports included: a type a folder needs ties it to that folder as much as a value.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The source trees whose folders the graph shows, lowest layer first. */
export const sourceTrees = ['definitions', 'connectors', 'runtime'] as const;

export interface FolderGraph {
  /** Every folder holding source files, as `runtime/http`. */
  folders: string[];
  /** folder → the folders it imports from → the importing files, each with what it imports. */
  edges: Map<string, Map<string, string[]>>;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The concern a file belongs to: its tree and first folder (`runtime/webhooks/log/x.ts` →
 * `runtime/webhooks`: a folder's sub-folders are parts of its concern); a tree's own files
 * (`runtime/errors.ts`) → `runtime`.
 */
export function folderOf(file: string): string {
  return dirname(relative(projectRoot, file)).split(sep).slice(0, 2).join('/');
}

export function folderGraph(): FolderGraph {
  const folders = new Set<string>();
  const edges = new Map<string, Map<string, string[]>>();
  for (const tree of sourceTrees) {
    for (const file of sourceFiles(join(projectRoot, tree))) {
      const from = folderOf(file);
      folders.add(from);
      for (const imported of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        if (!imported.fileName.startsWith('.')) continue;
        const target = resolve(dirname(file), imported.fileName);
        const to = folderOf(target);
        if (to === from || !sourceTrees.some((tree) => to === tree || to.startsWith(`${tree}/`))) continue;
        const byTarget = edges.get(from) ?? new Map<string, string[]>();
        edges.set(from, byTarget);
        const importers = byTarget.get(to) ?? [];
        byTarget.set(to, importers);
        importers.push(`${relative(projectRoot, file).split(sep).join('/')} → ${relative(projectRoot, target).split(sep).join('/')}`);
      }
    }
  }
  return { folders: [...folders].sort(), edges };
}

/**
 * Whether an edge ties a tree's own files to one of its folders (`runtime` → `runtime/http` or
 * back). A tree's own files are its shared vocabulary (types, errors, the log) and its entry
 * points (`connectors/index.ts`, the registry; `definitions/load-definitions.ts`): its folders use
 * the one and are composed by the other, so such edges run both ways by design and make no cycle.
 */
export function isTreeEdge(from: string, to: string): boolean {
  return (!from.includes('/') && to.startsWith(`${from}/`)) || (!to.includes('/') && from.startsWith(`${to}/`));
}

/**
 * The cycles among folders, each as the folders it goes through (strongly connected components of
 * more than one folder, found with Tarjan's algorithm), edges within a tree's root left out.
 */
export function folderCycles(graph: FolderGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (folder: string): void => {
    index.set(folder, next);
    low.set(folder, next);
    next += 1;
    stack.push(folder);
    onStack.add(folder);
    for (const to of graph.edges.get(folder)?.keys() ?? []) {
      if (isTreeEdge(folder, to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(folder, Math.min(low.get(folder)!, index.get(to)!));
      }
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      component.push(member);
      if (member === folder) break;
    }
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const folder of graph.folders) if (!index.has(folder)) visit(folder);
  return cycles;
}

/** The tree a folder belongs to: `runtime/http` → `runtime`. */
export function treeOf(folder: string): string {
  return folder.split('/')[0]!;
}
