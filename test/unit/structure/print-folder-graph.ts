/**
 * Prints which source folder imports which (`npx tsx test/unit/structure/print-folder-graph.ts`), with
 * the number of importing files per edge, then the cycles among folders, if any. `--files` lists
 * the imports behind each edge.
 */
import { folderCycles, folderGraph } from './import-graph.js';

const graph = folderGraph();
const withFiles = process.argv.includes('--files');
for (const folder of graph.folders) {
  const targets = [...(graph.edges.get(folder)?.entries() ?? [])].sort(([a], [b]) => a.localeCompare(b));
  console.log(`${folder}${targets.length === 0 ? '  (imports no other folder)' : ''}`);
  for (const [to, imports] of targets) {
    console.log(`  → ${to} (${imports.length})`);
    if (withFiles) for (const line of imports) console.log(`      ${line}`);
  }
}
const cycles = folderCycles(graph);
console.log(
  cycles.length === 0
    ? '\nno cycles among folders'
    : `\ncycles among folders:\n${cycles.map((cycle) => `  ${cycle.join(' ⇄ ')}`).join('\n')}`,
);
