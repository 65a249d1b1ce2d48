/**
 * Definitions are held to what their systems' connectors declare: loaded with a spec of the sql
 * connector that cannot order, limit or skip (as a connector for an API without those would), the
 * quickstart's sync with `order` and webhooks with `order` and `paging` are refused at the setting,
 * naming the system, the connector and the capability; with the real spec they load.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConnectorSpecs } from '../../../connectors/index.js';
import type { ConnectorSpecs } from '../../../definitions/connector-spec.js';
import { loadDefinitions } from '../../../definitions/load-definitions.js';
import { formatProblem, type Problem } from '../../../definitions/problem.js';

const connectors = await loadConnectorSpecs();
const sql = connectors.get('sql')!;
const unsorted: ConnectorSpecs = new Map([
  ['sql', { ...sql, capabilities: { ...sql.capabilities, order: false, limit: false, skip: false } }],
]);

/** Where and what, without the temporary directory. */
const said = (problem: Problem) => `${basename(problem.file)}:${problem.line}:${problem.column} ${problem.message}`;

const dir = mkdtempSync(join(tmpdir(), 'syncline-capabilities-'));
after(() => rmSync(dir, { recursive: true, force: true }));
cpSync(fileURLToPath(new URL('../../../examples/quickstart/', import.meta.url)), dir, {
  recursive: true,
  filter: (path) => !path.endsWith('.sqlite'),
});
writeFileSync(
  join(dir, 'reads.yaml'),
  `kind: Webhook
id: wh_customersByName0001
action: readWithSystem
system: crm
object: Customer
order: name asc
responseSchema: { type: array }
---
kind: Webhook
id: wh_customersPaged00001
action: readQueryWithSystem
system: crm
query: activeCustomersByCity
paging: { pageSizeParam: size, offsetParam: start }
`,
);

test('with a connector that cannot order, limit or skip, the settings that need it are refused where they are written', async () => {
  const result = await loadDefinitions([dir], { connectors: unsorted, env: {} });
  assert.equal(result.ok, false);
  const refused = result.problems.filter((problem) => problem.code === 'unsupported-capability').map(said);
  assert.deepEqual(refused, [
    `reads.yaml:6:8 order: system 'crm' uses the sql connector, which cannot sort the records it reads (its spec lacks the 'order' capability); remove order, or read from a system whose connector can`,
    `reads.yaml:14:9 paging: system 'crm' uses the sql connector, which cannot read a page of a given size (its spec lacks the 'limit' capability); remove paging, or read from a system whose connector can`,
    `reads.yaml:14:9 paging: system 'crm' uses the sql connector, which cannot start a page at an offset (its spec lacks the 'skip' capability); remove paging, or read from a system whose connector can`,
    `syncs.yaml:14:10 source.order: system 'crm' uses the sql connector, which cannot sort the records it reads (its spec lacks the 'order' capability); remove source.order, or read from a system whose connector can`,
  ]);
});

test('with the connector as it is, the same definitions load', async () => {
  const result = await loadDefinitions([dir], { connectors, env: {} });
  assert.deepEqual(result.problems.filter((problem) => problem.severity !== 'warning').map(formatProblem), []);
  assert.ok(result.ok);
});

test("a connector's own checks of its Systems are reported at the place they name, errors and warnings alike", async () => {
  const checking: ConnectorSpecs = new Map([
    [
      'sql',
      {
        ...sql,
        checkSystem: (system) =>
          system.id !== 'crm'
            ? []
            : [
                { path: ['objects', 'Customer', 'table'], code: 'table-check', message: `objects.Customer.table: ${system.id} checked` },
                { path: ['connection', 'filename'], code: 'file-note', message: 'connection.filename: noted', warning: true },
              ],
      },
    ],
  ]);
  const result = await loadDefinitions([dir], { connectors: checking, env: {} });
  assert.equal(result.ok, false);
  const own = result.problems.filter((problem) => ['table-check', 'file-note'].includes(problem.code));
  assert.deepEqual(
    own.map((problem) => [said(problem), problem.severity ?? 'error']),
    [
      ['systems.yaml:12:13 connection.filename: noted', 'warning'],
      ['systems.yaml:15:12 objects.Customer.table: crm checked', 'error'],
    ],
  );
});
