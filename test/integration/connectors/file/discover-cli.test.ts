/**
 * `syncline discover` on a file System: the files of its directory come out as objects ready to
 * paste — a glob for files that differ only in their numbers, a delimiter that is not the
 * connection's, columnNames for headers that cannot be field names, notes for typed group columns,
 * nothing of an archive folder — and pasted under the System they validate and are read as the
 * files hold them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import * as fileConnector from '../../../../connectors/file/index.js';
import type { SystemDefinition } from '../../../../definitions/types.js';
import { runCli } from '../../../support/cli-process.js';
import { readAll } from './file-system-fixture.js';

const system = (objects: string) => `kind: System\nid: files\nconnector: file\nconnection: { directory: data }\nobjects:${objects}`;

describe('syncline discover on a file System', () => {
  let base: string;
  let definitions: string;
  let output: string;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'syncline-file-discover-'));
    definitions = join(base, 'definitions');
    const data = join(definitions, 'data');
    mkdirSync(join(data, 'inbox'), { recursive: true });
    mkdirSync(join(data, 'done'), { recursive: true });
    writeFileSync(
      join(data, 'customers.csv'),
      'id,Full Name,email,active,joined,addresses.main.city\n1,Ada,ada@x,true,2024-01-31,London\n2,Bob,,false,2024-02-01,\n',
    );
    writeFileSync(join(data, 'prices.csv'), 'sku;price;updated\nA-1;1.5;2024-01-31T10:00:00Z\nB-2;20;2024-02-01T11:30:00.000Z\n');
    for (const month of ['01', '02']) {
      writeFileSync(
        join(data, 'inbox', `orders-2024-${month}.ndjson`),
        `{"OrderNumber":"O-${month}-1","total":12.5,"lines":[{"sku":"A-1"}],"paid":true}\n{"OrderNumber":"O-${month}-2","total":3,"paid":false}\n`,
      );
    }
    writeFileSync(join(data, 'done', 'orders-2023-12.ndjson'), '{"OrderNumber":"old"}\n');
    // The archive folder of a declared object holds files already read: discover passes over it.
    writeFileSync(
      join(definitions, 'systems.yaml'),
      system(
        '\n  Old: { path: inbox/*.ndjson, archive: { moveTo: done }, key: [OrderNumber], fields: { OrderNumber: { type: String } } }\n',
      ),
    );
    const run = await runCli(['discover', 'files', '--definitions', definitions]);
    assert.equal(run.code, 0, run.stderr);
    output = run.stdout;
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('prints each file, or each group of numbered files, as an object with its options, key and typed fields', () => {
    const { objects } = parse(output) as { objects: Record<string, Record<string, unknown>> };
    assert.deepEqual(objects, {
      customers: {
        path: 'customers.csv',
        format: 'csv',
        columnNames: { Full_Name: 'Full Name' },
        key: ['id'],
        fields: {
          id: { type: 'Integer' },
          Full_Name: { type: 'String' },
          email: { type: 'String' },
          active: { type: 'Boolean' },
          joined: { type: 'Date' },
        },
      },
      orders: {
        path: 'inbox/orders-*-*.ndjson',
        format: 'ndjson',
        key: ['OrderNumber'],
        fields: { OrderNumber: { type: 'String' }, total: { type: 'Number' }, lines: { type: 'Json' }, paid: { type: 'Boolean' } },
      },
      prices: {
        path: 'prices.csv',
        format: 'csv',
        delimiter: ';',
        fields: { sku: { type: 'String' }, price: { type: 'Number' }, updated: { type: 'DateTime' } },
      },
    });
    assert.match(output, /# addresses\.main\.city look like typed group columns \(group\.type\.field\): declare them under groups/);
    assert.match(output, /# path matches 2 files; the fields are read from the first, inbox\/orders-2024-01\.ndjson/);
    assert.match(output, /^# No key: prices; add key: \[field, …\] before reading by id or writing\.$/m);
  });

  it('pasted under the System, the objects validate and read the files as they hold them', async () => {
    const pasted = join(base, 'pasted');
    mkdirSync(pasted);
    const objects = output
      .slice(output.indexOf('objects:\n') + 'objects:\n'.length)
      .replace(/^( {2}prices:\n)/m, '$1    key: [sku]\n')
      .replace(/^ {4}path: /gm, '    path: ');
    writeFileSync(
      join(pasted, 'systems.yaml'),
      system(`\n${objects}`).replace('{ directory: data }', `{ directory: ${JSON.stringify(join(definitions, 'data'))} }`),
    );
    const validate = await runCli(['validate', pasted]);
    assert.equal(validate.code, 0, validate.stdout + validate.stderr);
    const definition = parse(`${system(`\n${objects}`)}`) as SystemDefinition;
    const connection = fileConnector.createConnection({ ...definition, queries: {} }, { baseDirectory: definitions });
    try {
      assert.deepEqual((await readAll(connection, 'customers'))[1], {
        id: 2,
        Full_Name: 'Bob',
        email: null,
        active: false,
        joined: '2024-02-01',
      });
      assert.deepEqual(
        (await readAll(connection, 'orders')).map((record) => record.OrderNumber),
        ['O-01-1', 'O-01-2', 'O-02-1', 'O-02-2'],
      );
      assert.deepEqual((await readAll(connection, 'prices'))[0], { sku: 'A-1', price: 1.5, updated: '2024-01-31T10:00:00.000Z' });
    } finally {
      await connection.close();
    }
  });
});
