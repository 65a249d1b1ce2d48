/**
 * Creates the example's SQLite warehouse from data/warehouse.sql, once, with the quickstart's
 * script runner: an existing database is left as it is. Delete data/warehouse.sqlite to start
 * over. WAREHOUSE_DB puts it elsewhere (absolute, or relative to this directory, as the System's
 * filename is).
 *
 *   npx tsx examples/rest-to-sqlite/create-target.ts
 *   node dist/examples/rest-to-sqlite/create-target.js     (the same, compiled by npm install)
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { packageRoot } from '../../runtime/package-info.js';
import { createSqliteFromScript } from '../quickstart/sql-script.js';

// Found from the package root, not from this module: it also runs compiled, from dist/.
const here = join(packageRoot(), 'examples', 'rest-to-sqlite');
const file = resolve(here, process.env.WAREHOUSE_DB || 'data/warehouse.sqlite');

if (!existsSync(file)) {
  mkdirSync(dirname(file), { recursive: true });
  // Built under a temporary name and renamed, so an interrupted run never leaves half a database.
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  await createSqliteFromScript(partial, resolve(here, 'data/warehouse.sql'));
  renameSync(partial, file);
  console.log(`created ${file}`);
}
