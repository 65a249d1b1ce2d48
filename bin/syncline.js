#!/usr/bin/env node
// The `syncline` command: the compiled JavaScript under dist/, which `npm install` builds in a
// checkout (`prepare`) and a packed package ships. bin/syncline-dev.js runs the TypeScript
// sources instead, for development and the tests.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/runtime/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('syncline: dist/ is missing; run `npm run build` (npm install runs it)\n');
  process.exit(70);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
// The command is over and has closed what it opened. A handle a library failed to close (a file
// watcher closed during a directory scan, chokidar issue 1482) must not keep a stopped server
// alive until it is killed: the process exits by itself within a few seconds regardless.
setTimeout(() => process.exit(), 3000).unref();
