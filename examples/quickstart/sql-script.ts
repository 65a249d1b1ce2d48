/**
 * Builds a SQLite database from one of the quickstart's `.sql` scripts: statements end with `;`
 * at the end of a line, `--` comments are dropped, and everything runs in one transaction.
 */
import { readFile } from 'node:fs/promises';
import knex from 'knex';

export async function createSqliteFromScript(file: string, script: string): Promise<void> {
  const db = knex({ client: 'sqlite3', connection: { filename: file }, useNullAsDefault: true });
  try {
    const statements = (await readFile(script, 'utf8'))
      .replace(/^--.*$/gm, '')
      .split(/;\s*$/m)
      .map((s) => s.trim())
      .filter(Boolean);
    await db.transaction(async (trx) => {
      for (const statement of statements) await trx.raw(statement);
    });
  } finally {
    await db.destroy();
  }
}
