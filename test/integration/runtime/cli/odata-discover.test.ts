/**
 * `syncline discover` on an `odata` System (SAP CAP serving the CRM): each entity set comes out as
 * an object with `entitySet`, its key and fields typed from $metadata, navigation collections named
 * in comments; pasted under the System, the objects validate with `syncline validate`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../../../support/cli-process.js';
import { describeWithODataServer } from '../../../support/odata-server.js';

const system = (objects: string) =>
  `kind: System\nid: shop\nconnector: odata\nconnection:\n  baseUrl: \${env:SHOP_ODATA_URL}\nobjects:\n${objects}`;

await describeWithODataServer('syncline discover on an odata System', {}, (server) => {
  let definitions: string;
  const env = () => ({ SHOP_ODATA_URL: server().url });
  before(async () => {
    definitions = await mkdtemp(join(tmpdir(), 'syncline-odata-discover-'));
    await writeFile(
      join(definitions, 'systems.yaml'),
      system('  Placeholder: { entitySet: Accounts, key: [AccountNumber], fields: { AccountNumber: { type: String } } }\n'),
    );
  });
  after(async () => {
    if (definitions) await rm(definitions, { recursive: true, force: true });
  });

  test('prints every entity set as an object; pasted under the System they validate', async () => {
    const run = await runCli(['discover', 'shop', '--definitions', definitions], { env: env() });
    assert.equal(run.code, 0, run.stderr);
    const { objects } = parse(run.stdout) as {
      objects: Record<string, { entitySet: string; key: string[]; fields: Record<string, { type: string }> }>;
    };
    assert.deepEqual(Object.keys(objects).sort(), ['Accounts', 'Addresses', 'Contracts', 'Customers', 'Devices', 'Vendors']);
    assert.deepEqual(objects.Customers, {
      entitySet: 'Customers',
      key: ['id'],
      fields: {
        id: { type: 'Integer' },
        name: { type: 'String' },
        email: { type: 'String' },
        active: { type: 'Boolean' },
        score: { type: 'Integer' },
        balance: { type: 'Number' },
        birthday: { type: 'Date' },
        updated_at: { type: 'DateTime' },
        notes: { type: 'String' },
        meta: { type: 'String' },
      },
    });
    assert.deepEqual(objects.Addresses!.key, ['customer_id', 'type']);
    assert.match(run.stdout, /# navigation 'addresses' of CrmService\.Customers is a collection of CrmService\.Addresses/);

    const pasted = run.stdout.replace(/^[\s\S]*?^objects:\n/m, '');
    await writeFile(join(definitions, 'systems.yaml'), system(pasted));
    const validated = await runCli(['validate', definitions], { env: env() });
    assert.equal(validated.code, 0, `${validated.stdout}${validated.stderr}`);
  });

  test('one entity set with --object; an unknown one is answered with what there is', async () => {
    const one = await runCli(['discover', 'shop', '--object', 'accounts', '--definitions', definitions], { env: env() });
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(Object.keys((parse(one.stdout) as { objects: object }).objects), ['Accounts']);
    const none = await runCli(['discover', 'shop', '--object', 'Orders', '--definitions', definitions], { env: env() });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no object 'Orders'; it has: Accounts, Addresses, Contracts, Customers, Devices, Vendors/);
  });
});
