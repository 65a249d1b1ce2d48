/**
 * Creates the quickstart's two SQLite databases from data/*.sql, once: an existing database is
 * left as it is, so demo changes survive restarts. Delete the .sqlite files to start over.
 * Runs before `npm start` (package.json `prestart`), compiled under dist/ like the runtime, so the
 * quickstart's files are found from the package root, not from this module.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { packageRoot } from '../../runtime/package-info.js';
import { createSqliteFromScript } from './sql-script.js';

const here = join(packageRoot(), 'examples', 'quickstart');
const databases = [
  // Relative to this directory, as systems.yaml's filenames are: SQLite files are found from the definitions.
  { sql: resolve(here, 'data/crm.sql'), file: resolve(here, process.env.CRM_DB || 'data/crm.sqlite') },
  { sql: resolve(here, 'data/erp.sql'), file: resolve(here, process.env.ERP_DB || 'data/erp.sqlite') },
];

for (const { sql, file } of databases) {
  if (existsSync(file)) continue;
  mkdirSync(dirname(file), { recursive: true });
  // Built under a temporary name and renamed, so an interrupted run never leaves half a database.
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  await createSqliteFromScript(partial, sql);
  renameSync(partial, file);
  console.log(`created ${file} from ${sql}`);
}
