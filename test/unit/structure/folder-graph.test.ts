/**
 * The layers stay readable from the folder names: definitions ← connectors ← runtime (a tree
 * imports only from trees before it), and no folders import each other round in a cycle. When
 * this fails, `npx tsx test/unit/structure/print-folder-graph.ts --files` shows the imports behind
 * each edge.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { folderCycles, folderGraph, sourceTrees, treeOf, type FolderGraph } from './import-graph.js';

const graph = folderGraph();

/** Each import that goes from a tree to one after it in `sourceTrees`. */
function upwardImports(graph: FolderGraph): string[] {
  const upward: string[] = [];
  for (const [from, targets] of graph.edges) {
    for (const [to, imports] of targets) {
      const rank = (folder: string) => sourceTrees.indexOf(treeOf(folder) as (typeof sourceTrees)[number]);
      if (rank(to) > rank(from)) upward.push(...imports);
    }
  }
  return upward.sort();
}

test('a tree imports only from the trees below it: definitions ← connectors ← runtime', () => {
  assert.deepEqual(upwardImports(graph), []);
});

test('no folders import each other in a cycle', () => {
  assert.deepEqual(folderCycles(graph), []);
});

test('the graph sees the whole source: every tree has folders and the known edges are there', () => {
  for (const tree of sourceTrees)
    assert.ok(
      graph.folders.some((folder) => treeOf(folder) === tree),
      `no folder of ${tree}`,
    );
  assert.ok(graph.edges.get('runtime/http')?.has('runtime/queue'), 'runtime/http imports runtime/queue');
  assert.ok(graph.edges.get('connectors/sql')?.has('definitions/expression'), 'the SQL connector compiles the expression language');
});

test('a cycle and an upward import are found', () => {
  const edges = new Map([
    ['runtime/a', new Map([['runtime/b', ['runtime/a/x.ts → runtime/b/y.ts']]])],
    ['runtime/b', new Map([['runtime/a', ['runtime/b/y.ts → runtime/a/x.ts']]])],
    ['definitions/c', new Map([['connectors/d', ['definitions/c/z.ts → connectors/d/w.ts']]])],
    ['runtime', new Map([['runtime/a', ['runtime/log.ts → runtime/a/x.ts']]])],
    ['runtime/e', new Map([['runtime', ['runtime/e/v.ts → runtime/log.ts']]])],
  ]);
  const made: FolderGraph = { folders: ['connectors/d', 'definitions/c', 'runtime', 'runtime/a', 'runtime/b', 'runtime/e'], edges };
  assert.deepEqual(folderCycles(made), [['runtime/a', 'runtime/b']]);
  assert.deepEqual(upwardImports(made), ['definitions/c/z.ts → connectors/d/w.ts']);
});
