/**
 * Builds the operator console into dist/console (bin/build.js runs it). The app lives in its own
 * top-level folder, not under runtime/: it is browser code with its own compiler settings (DOM,
 * JSX) and bundler, and the runtime only serves its built files (runtime/http/console-assets.ts).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // The runtime serves the app at /console/; asset URLs in index.html are absolute under it.
  base: '/console/',
  // Preact's automatic JSX runtime, without the preset plugin: Vite's own transformer (oxc) compiles JSX.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // The preload polyfill would be the only script not in a file of ours; modern browsers need none.
    modulePreload: { polyfill: false },
    // No inline assets: the Content-Security-Policy allows only files of the console itself.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
