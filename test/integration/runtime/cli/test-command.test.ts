/**
 * `syncline test` as CI runs it: the real command in a child process against the quickstart's
 * definitions, with test files written for each test, its exit code and its output in the three
 * formats. The spawns run concurrently because each one pays for starting node and compiling the
 * TypeScript sources.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { projectRoot, runCli } from '../../../support/cli-process.js';

const quickstart = join(projectRoot, 'examples', 'quickstart');
const scratch = mkdtempSync(join(tmpdir(), 'syncline-test-command-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let made = 0;
/** A directory with the quickstart's definitions and these files beside them. */
function definitionsWith(files: Record<string, string>): string {
  const dir = join(scratch, `set-${++made}`);
  mkdirSync(dir);
  for (const name of ['systems.yaml', 'syncs.yaml', 'webhooks.yaml']) copyFileSync(join(quickstart, name), join(dir, name));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const ada = `
    input:
      id: 42
      name: Ada Lovelace
      email: Ada@Example.COM
      addresses: { main: { city: London, country: GB } }`;

const passing = `kind: Test
id: mapping
cases:
  - name: maps Ada
    mapping: crm-customers-to-erp${ada}
    output: { AccountNumber: C-42, AccountName: Ada Lovelace, Email: ada@example.com, City: London, Country: GB }
    ignore: [SyncedAt]
`;

describe('syncline test', { concurrency: true }, () => {
  test('the quickstart ships tests, and they pass: exit 0, a ✓ per case and the summary', async () => {
    const run = await runCli(['test', 'examples/quickstart']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^examples\/quickstart\/syncs\.test\.yaml$/m);
    assert.match(run.stdout, /^examples\/quickstart\/webhooks\.test\.yaml$/m);
    assert.match(run.stdout, /^ {2}✓ maps a customer with a main address to an ERP account \((?:\d+ ms|[\d.]+ s)\)$/m);
    assert.match(run.stdout, /^ {2}✓ a deleted customer is ignored \((?:\d+ ms|[\d.]+ s)\)$/m);
    assert.doesNotMatch(run.stdout, /✗/);
    assert.match(run.stdout, /^(\d+) cases: \1 passed, 0 failed \((?:\d+ ms|[\d.]+ s)\)$/m);
    assert.ok(!run.stdout.includes('\u001b['), 'no colour when the output is no terminal');
  });

  test('without a directory it tests the definitions directory serve would use (SYNCLINE_DEFINITIONS)', async () => {
    const dir = definitionsWith({ 'mapping.test.yaml': passing });
    const run = await runCli(['test'], { env: { SYNCLINE_DEFINITIONS: dir } });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /✓ maps Ada/);
    assert.match(run.stdout, /^1 case: 1 passed, 0 failed/m);
  });

  test('a mapping case that fails: exit 1, file:line:col of the expected field, and a diff', async () => {
    const dir = definitionsWith({
      'mapping.test.yaml': `kind: Test
cases:
  - name: maps Ada
    mapping: crm-customers-to-erp${ada}
    output:
      AccountNumber: C-42
      AccountName: Ada Lovelace
      Email: Ada@Example.COM
      City: London
    ignore: [SyncedAt]
`,
    });
    const run = await runCli(['test', dir]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const file = join(dir, 'mapping.test.yaml');
    assert.match(run.stdout, /^ {2}✗ maps Ada/m);
    const lines = run.stdout.split('\n');
    assert.ok(lines.includes(`    ${file}:13:14: output.Email: expected "Ada@Example.COM", got "ada@example.com"`), run.stdout);
    assert.ok(lines.includes(`    ${file}:11:7: output.Country: not expected, but there is "GB"`), run.stdout);
    assert.ok(lines.includes('      -   "Email": "Ada@Example.COM",'), run.stdout);
    assert.ok(lines.includes('      +   "Email": "ada@example.com",'), run.stdout);
    assert.ok(!run.stdout.includes('SyncedAt'), 'an ignored field is neither compared nor shown');
    assert.match(run.stdout, /^1 case: 0 passed, 1 failed/m);
  });

  test('a whole number past 2^53 in a case is its exact digits, as a run reads it, not the double YAML rounds it to', async () => {
    const dir = definitionsWith({
      'mapping.test.yaml': passing
        .replace('id: 42', 'id: 9007199254740993')
        .replace('AccountNumber: C-42', 'AccountNumber: C-9007199254740993'),
    });
    const run = await runCli(['test', dir]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /✓ maps Ada/);
  });

  test('expected errors: the mapping must fail with that text', async () => {
    const dir = definitionsWith({
      'errors.test.yaml': `kind: Test
cases:
  - name: a number as e-mail fails
    mapping: crm-customers-to-erp
    input: { id: 1, name: X, email: 42 }
    error: lowercase
  - name: other words
    mapping: crm-customers-to-erp
    input: { id: 1, name: X, email: 42 }
    error: uppercase
  - name: no failure at all
    mapping: crm-customers-to-erp
    input: { id: 1, name: X, email: x@example.com }
    error: lowercase
`,
    });
    const run = await runCli(['test', dir]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const file = join(dir, 'errors.test.yaml');
    assert.match(run.stdout, /✓ a number as e-mail fails/);
    assert.ok(run.stdout.includes(`${file}:10:12: the mapping failed, but its error does not contain "uppercase"`), run.stdout);
    assert.ok(run.stdout.includes('+ "mapping: Argument 1 of function \\"lowercase\\" does not match function signature"'), run.stdout);
    assert.ok(
      run.stdout.includes(`${file}:14:12: expected the mapping to fail with an error containing "lowercase", but it produced a record`),
      run.stdout,
    );
    assert.match(run.stdout, /^3 cases: 1 passed, 2 failed/m);
  });

  test('filter and condition cases: passes, and failures that say which part decided', async () => {
    const dir = definitionsWith({
      'filters.test.yaml': `kind: Test
cases:
  - name: inactive customers are left out
    filter: crm-customers-to-erp
    record: { id: 1, email: a@example.com, active: false }
    expect: false
  - name: wrongly expected to pass without an e-mail
    filter: crm-customers-to-erp
    record: { id: 1, email: "", active: true }
    expect: true
  - name: params narrow the where
    filter: crm-customers-to-erp
    record: { id: 7, email: a@example.com, active: true }
    params: { id: 7 }
    expect: true
`,
      'conditions.test.yaml': `kind: Test
cases:
  - name: a deletion does not start the sync
    condition: wh_crmCustomerChanged01
    request: { body: { id: 1, event: customer.deleted } }
    expect: false
  - name: wrongly expected to refuse an update
    condition: wh_crmCustomerChanged01
    request: { body: { id: 1, event: customer.updated } }
    expect: false
  - name: the request schema refuses a call without id
    condition: wh_crmCustomerChanged01
    request: { body: { event: customer.updated } }
    expect: true
  - name: GET data is the query string, typed by the request schema
    condition: wh_crmCustomerChanged01
    request: { method: GET, query: { id: 5, event: customer.created } }
    expect: true
`,
    });
    const run = await runCli(['test', dir]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const filters = join(dir, 'filters.test.yaml');
    const conditions = join(dir, 'conditions.test.yaml');
    assert.match(run.stdout, /✓ inactive customers are left out/);
    assert.match(run.stdout, /✓ params narrow the where/);
    assert.ok(
      run.stdout.includes(
        `${filters}:10:13: expected the record to be synced, but it is left out: where (active = 1 AND (#params.id# IS NULL OR id = #params.id#)) is true, precondition (#email# <> '') is false`,
      ),
      run.stdout,
    );
    assert.match(run.stdout, /✓ a deletion does not start the sync/);
    assert.ok(
      run.stdout.includes(
        `${conditions}:10:13: expected the action not to run, but it runs: the condition (#event# <> 'customer.deleted') is true`,
      ),
      run.stdout,
    );
    assert.ok(
      run.stdout.includes(
        `${conditions}:13:14: the webhook refuses this request (400) before its condition: The request does not match the request schema of webhook wh_crmCustomerChanged01: /id must have required property 'id'.`,
      ),
      run.stdout,
    );
    assert.match(run.stdout, /✓ GET data is the query string, typed by the request schema/);
    assert.match(run.stdout, /^7 cases: 4 passed, 3 failed/m);
  });

  test('an unknown sync or webhook: exit 2 at its line with did-you-mean, and no case runs', async () => {
    const dir = definitionsWith({
      'typos.test.yaml': `kind: Test
id: typos
cases:
  - name: a typo in the sync
    mapping: crm-customer-to-erp
    input: {}
    output: {}
  - name: a typo in the webhook
    condition: wh_crmCustomerChanged1
    request: {}
    expect: true
`,
      'fine.test.yaml': passing,
    });
    const run = await runCli(['test', dir]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    const file = join(dir, 'typos.test.yaml');
    assert.deepEqual(run.stderr.trim().split('\n'), [
      `${file}:5:14: Test/typos: cases[0].mapping: unknown Sync 'crm-customer-to-erp'; did you mean 'crm-customers-to-erp'?`,
      `${file}:9:16: Test/typos: cases[1].condition: unknown Webhook 'wh_crmCustomerChanged1'; did you mean 'wh_crmCustomerChanged01'?`,
      '2 problems in 1 file; no case was run',
    ]);
    assert.equal(run.stdout, '');
  });

  test('an invalid test file: exit 2, one file:line:col line per problem', async () => {
    const dir = definitionsWith({
      'broken.test.yaml': `kind: Test
cases:
  - name: two kinds at once
    mapping: crm-customers-to-erp
    filter: crm-customers-to-erp
    input: {}
    output: {}
  - name: a typo
    filter: crm-customers-to-erp
    recrod: {}
    expect: yes
  - name: output and error
    mapping: crm-customers-to-erp
    input: {}
    output: {}
    error: boom
  - name: nothing to test
`,
      'yaml.test.yaml': 'kind: Test\ncases:\n  - name: [unclosed\n',
    });
    const run = await runCli(['test', dir]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    const file = join(dir, 'broken.test.yaml');
    const lines = run.stderr.trim().split('\n');
    for (const expected of [
      `${file}:5:5: cases[0]: has mapping and filter, but a case tests one thing; split it into one case each`,
      `${file}:10:5: cases[1]: unknown property 'recrod'; did you mean 'record'?`,
      `${file}:11:13: cases[1].expect: must be a boolean, not the string 'yes'`,
      `${file}:16:5: cases[2]: has output and error; give only one of them`,
      `${file}:17:5: cases[3]: needs mapping, or filter, or condition, or webhook, or sync`,
    ]) {
      assert.ok(lines.includes(expected), `${expected}\nin\n${run.stderr}`);
    }
    assert.ok(
      lines.some((line) => line.startsWith(`${join(dir, 'yaml.test.yaml')}:`)),
      run.stderr,
    );
    assert.match(lines.at(-1)!, /^\d+ problems in 2 files; no case was run$/);
  });

  test('--format json: the documented shape, parseable; --format junit: parseable XML with a failure per failed case', async () => {
    const dir = definitionsWith({
      'mapping.test.yaml': passing,
      'failing.test.yaml': `kind: Test
cases:
  - name: wrong city
    mapping: crm-customers-to-erp${ada}
    output: { AccountNumber: C-42, AccountName: Ada Lovelace, Email: ada@example.com, City: Paris, Country: GB }
    ignore: [SyncedAt]
`,
    });
    const [json, junit] = await Promise.all([runCli(['test', dir, '--format', 'json']), runCli(['test', dir, '--format', 'junit'])]);
    assert.equal(json.code, 1, json.stderr);
    const report = JSON.parse(json.stdout);
    assert.equal(report.passed, false);
    assert.deepEqual({ ...report.summary, durationMs: 0 }, { cases: 2, passed: 1, failed: 1, durationMs: 0 });
    assert.deepEqual(report.problems, []);
    const failing = report.files.find((file: { file: string }) => file.file.endsWith('failing.test.yaml'));
    assert.equal(failing.name, 'failing.test.yaml', 'a file without id is named by its file name');
    const [wrong] = failing.cases;
    assert.deepEqual(
      { ...wrong, durationMs: 0 },
      {
        name: 'wrong city',
        kind: 'mapping',
        target: 'crm-customers-to-erp',
        line: 3,
        column: 5,
        passed: false,
        durationMs: 0,
        failures: [
          {
            message: 'output.City: expected "Paris", got "London"',
            line: 10,
            column: 93,
            expected: { AccountNumber: 'C-42', AccountName: 'Ada Lovelace', Email: 'ada@example.com', City: 'Paris', Country: 'GB' },
            actual: { AccountNumber: 'C-42', AccountName: 'Ada Lovelace', Email: 'ada@example.com', City: 'London', Country: 'GB' },
          },
        ],
      },
    );
    const passed = report.files.find((file: { file: string }) => file.file.endsWith('mapping.test.yaml'));
    assert.equal(passed.name, 'mapping');
    assert.equal(passed.cases[0].passed, true);

    assert.equal(junit.code, 1, junit.stderr);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit.stdout);
    assert.equal(xml.testsuites.tests, '2');
    assert.equal(xml.testsuites.failures, '1');
    const suites = [xml.testsuites.testsuite].flat();
    const failed = suites.find((suite: { name: string }) => suite.name === 'failing.test.yaml');
    assert.equal(failed.testcase.name, 'wrong city');
    assert.equal(failed.testcase.failure.message, `${join(dir, 'failing.test.yaml')}:10:93: output.City: expected "Paris", got "London"`);
    assert.match(failed.testcase.failure['#text'], /-\s+"City": "Paris",\n\+\s+"City": "London",/);
  });

  test('tests in their own directory name the definitions with --definitions; without it they are refused', async () => {
    const dir = definitionsWith({ 'tests/mapping.test.yaml': passing });
    const tests = join(dir, 'tests');
    const definitions = join(scratch, `definitions-only-${++made}`);
    mkdirSync(definitions);
    for (const name of ['systems.yaml', 'syncs.yaml', 'webhooks.yaml']) copyFileSync(join(dir, name), join(definitions, name));
    const [named, alone, nothing] = await Promise.all([
      runCli(['test', tests, '--definitions', definitions]),
      runCli(['test', tests]),
      runCli(['test', definitions]),
    ]);
    assert.equal(named.code, 0, named.stdout + named.stderr);
    assert.match(named.stdout, /✓ maps Ada/);
    assert.equal(alone.code, 2);
    assert.equal(
      alone.stderr,
      `error: ${tests} holds test files but no definitions; name the definitions they test with --definitions DIR\n`,
    );
    assert.equal(nothing.code, 2);
    assert.equal(nothing.stderr, `error: no test files (*.test.yaml, *.test.yml) in ${definitions}\n`);
  });

  test('unusable flags and paths exit 2 with one error line', async () => {
    const [format, missing, noDefault] = await Promise.all([
      runCli(['test', 'examples/quickstart', '--format', 'tap']),
      runCli(['test', 'no/such/dir']),
      runCli(['test'], { cwd: mkdtempSync(join(tmpdir(), 'syncline-empty-')) }),
    ]);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /argument 'tap' is invalid\. Allowed choices are text, json, junit\./);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, 'error: no/such/dir: no such file or directory\n');
    // Run where no definitions are: the error says where the directory came from and what to type.
    assert.equal(noDefault.code, 2);
    assert.equal(
      noDefault.stderr,
      'error: examples/quickstart: no such file or directory (the definitions directory from the default); name yours: syncline test DIR\n',
    );
  });

  test('broken definitions: exit 2 with their problems, no case runs', async () => {
    const dir = definitionsWith({ 'mapping.test.yaml': passing, 'extra.yaml': 'kind: Sync\nid: half\n' });
    const run = await runCli(['test', dir]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /extra\.yaml:1:1: Sync\/half: the definition is missing required property 'source'/);
    assert.match(run.stderr, /no case was run\n$/);
    assert.equal(run.stdout, '');
  });
});

describe('syncline validate with test files', { concurrency: true }, () => {
  test('test files are not definitions: validate counts them apart and checks their form and references', async () => {
    const good = definitionsWith({ 'mapping.test.yaml': passing });
    const bad = definitionsWith({
      'typo.test.yaml': 'kind: Test\ncases:\n  - name: typo\n    mapping: crm-customer-to-erp\n    input: {}\n    output: {}\n',
    });
    const misplaced = definitionsWith({ 'cases.yaml': passing });
    const [valid, invalid, wrongFile] = await Promise.all([
      runCli(['validate', good]),
      runCli(['validate', bad]),
      runCli(['validate', misplaced]),
    ]);
    assert.equal(valid.code, 0, valid.stdout + valid.stderr);
    assert.equal(valid.stdout, 'valid: 3 files (2 System, 1 Sync, 1 Webhook, 0 Flow, 0 ApiClient); 1 test file (1 case)\n');
    assert.equal(invalid.code, 1);
    assert.equal(
      invalid.stdout,
      `${join(bad, 'typo.test.yaml')}:4:14: cases[0].mapping: unknown Sync 'crm-customer-to-erp'; did you mean 'crm-customers-to-erp'?\n`,
    );
    assert.equal(wrongFile.code, 1);
    assert.match(wrongFile.stdout, /cases\.yaml:1:7: kind Test belongs in a test file: name this file \*\.test\.yaml/);
  });
});
