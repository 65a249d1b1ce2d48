/**
 * Creates the example's SQLite warehouse from data/warehouse.sql, once, with the quickstart's
 * script runner: an existing database is left as it is. Delete data/warehouse.sqlite to start
 * over. WAREHOUSE_DB puts it elsewhere (absolute, or relative to this directory, as the System's
 * filename is).
 *
 *   npx tsx examples/rest-to-sqlite/create-target.ts
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSqliteFromScript } from '../quickstart/sql-script.js';

const here = dirname(fileURLToPath(import.meta.url));
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
