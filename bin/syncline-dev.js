#!/usr/bin/env node
// The `syncline` command run from the TypeScript sources, compiled on load by tsx (a development
// dependency): what the tests run, so they always test the sources as they are, and what a
// developer runs without building. Installed packages run bin/syncline.js (compiled, dist/).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../runtime/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
// As bin/syncline.js: a handle a library left open does not keep the finished command alive.
setTimeout(() => process.exit(), 3000).unref();
