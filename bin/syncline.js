#!/usr/bin/env node
// The `syncline` command. Sources are TypeScript; tsx compiles them on load so that the
// package runs straight from a checkout with no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../runtime/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
