/**
 * Number values a double cannot hold exactly, copied between real databases through the sql
 * connector as a sync copies them (read the source, write the target matching on the key, then a
 * second run that leaves unchanged records alone): a decimal(30,10) reaches another decimal digit
 * for digit, and the second run finds nothing to change, whatever scale pads either side. A double rounded
 * 12345678901234567890.1234567891 to 12345678901234567000 and 1234567890123.4567 to
 * 1234567890123.4568, and the unchanged check then rewrote the exact target on every run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Connection, RecordData } from '../../../../connectors/connection.js';
import * as sqlConnector from '../../../../connectors/sql/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { databaseTargets, type Engine, type TestDatabase } from '../../../support/databases.js';

function system(id: string, database: TestDatabase): SystemDefinition {
  return {
    kind: 'System',
    id,
    connector: 'sql',
    connection: database.connection,
    objects: {
      Ledger: { table: 'ledger', key: ['id'], fields: { id: { type: 'Integer' }, amount: { type: 'Number' } } },
    },
    queries: {},
  } as unknown as SystemDefinition;
}

const amounts: Record<number, string> = {
  1: '12345678901234567890.1234567891',
  2: '1234567890123.4567',
  3: '0.1',
  4: '-1.5',
  5: '12345678901234.568',
};

/** The decimal a column holds, without the zeros its scale pads it with. */
function plain(text: string): string {
  const trimmed = text.trim();
  return trimmed.includes('.') ? trimmed.replace(/0+$/, '').replace(/\.$/, '') : trimmed;
}

async function readAll(connection: Connection): Promise<RecordData[]> {
  const records: RecordData[] = [];
  for await (const page of connection.read('Ledger')) records.push(...page);
  return records.sort((a, b) => Number(a.id) - Number(b.id));
}

const targets = new Map((await databaseTargets()).map((target) => [target.engine, target]));

function pair(source: Engine, sourceColumn: string, target: Engine, targetColumn: string, ids: readonly number[]): void {
  const from = targets.get(source);
  const to = targets.get(target);
  const unavailable = [from, to].map((one) => (one === undefined ? 'not selected' : one.unavailable)).find((why) => why !== undefined);
  const title = `exact decimals from ${from?.label ?? source} ${sourceColumn} to ${to?.label ?? target} ${targetColumn}`;
  if (from === undefined || to === undefined || unavailable !== undefined) {
    describe(title, { skip: unavailable ?? 'not selected' }, () => {});
    return;
  }
  describe(title, () => {
    let sourceDatabase: TestDatabase;
    let targetDatabase: TestDatabase;
    let reader: Connection;
    let writer: Connection;

    before(async () => {
      sourceDatabase = await from.create();
      targetDatabase = await to.create();
      await sourceDatabase.admin.raw(`CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount ${sourceColumn})`);
      await targetDatabase.admin.raw(`CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount ${targetColumn})`);
      for (const id of ids) await sourceDatabase.admin.raw(`INSERT INTO ledger (id, amount) VALUES (${id}, ${amounts[id]})`);
      reader = sqlConnector.createConnection(system('source', sourceDatabase), { baseDirectory: sourceDatabase.baseDirectory });
      writer = sqlConnector.createConnection(system('target', targetDatabase), { baseDirectory: targetDatabase.baseDirectory });
    });
    after(async () => {
      await reader?.close();
      await writer?.close();
      await sourceDatabase?.drop();
      await targetDatabase?.drop();
    });

    async function copy(): Promise<string[]> {
      const writes = (await readAll(reader)).map((record) => ({ values: record, match: { id: record.id }, leaveUnchanged: true }));
      const outcomes = await writer.writeMany('Ledger', writes);
      return outcomes.map((outcome) => (outcome instanceof Error ? outcome.message : outcome.action));
    }

    test('every digit arrives, and a second run changes nothing', async () => {
      assert.deepEqual(
        await copy(),
        ids.map(() => 'created'),
      );
      const stored = (await targetDatabase.admin.raw('SELECT id, CAST(amount AS CHAR(50)) AS amount FROM ledger ORDER BY id')) as unknown;
      const rows = (Array.isArray(stored) ? stored[0] : (stored as { rows: unknown[] }).rows) as Array<{ id: number; amount: string }>;
      assert.deepEqual(
        Object.fromEntries(rows.map((row) => [Number(row.id), plain(row.amount)])),
        Object.fromEntries(ids.map((id) => [id, amounts[id]])),
      );
      assert.deepEqual(
        await copy(),
        ids.map(() => 'unchanged'),
      );
      // What the target's records carry: exact text where a double would round, numbers elsewhere.
      const amountsRead = (await readAll(writer)).map((record) => record.amount);
      assert.deepEqual(
        amountsRead.map((amount) => (typeof amount === 'string' ? plain(amount) : amount)),
        ids.map((id) => (id === 1 || id === 2 ? amounts[id] : Number(amounts[id]))),
      );
    });
  });
}

pair('postgres', 'NUMERIC(30,10)', 'mariadb', 'DECIMAL(30,10)', [1, 2, 3, 4, 5]);
pair('mariadb', 'DECIMAL(30,10)', 'postgres', 'NUMERIC(30,10)', [1, 2, 3, 4, 5]);
// Another scale: '1234567890123.4567000000' read from the source and '1234567890123.4567' from the target are one value.
pair('postgres', 'NUMERIC(30,10)', 'mariadb', 'DECIMAL(32,4)', [2, 3, 4]);
pair('sqlite', 'REAL', 'postgres', 'NUMERIC(30,10)', [3, 4, 5]);
