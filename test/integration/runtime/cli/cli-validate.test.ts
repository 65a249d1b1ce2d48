/**
 * `syncline validate` and `syncline schema` as CI and editors use them: the real command in a
 * child process, its exit code and its output. The spawns run concurrently because each one pays
 * for starting node and compiling the TypeScript sources.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import addFormatsModule from 'ajv-formats';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseAllDocuments } from 'yaml';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const script = join(repo, 'bin', 'syncline-dev.js');

type AddFormats = (ajv: Ajv2020) => unknown;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI from the repository root, as `npm run validate` does. */
function syncline(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd: repo, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('syncline validate', { concurrency: true }, () => {
  test('the quickstart is valid: exit 0 and a "valid:" line', async () => {
    const run = await syncline('validate', 'examples/quickstart');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(lines(run.stdout).length, 1, run.stdout);
    assert.match(
      run.stdout,
      /^valid: \d+ files \(\d+ System, \d+ Sync, \d+ Webhook, \d+ Flow, \d+ ApiClient\); \d+ test files \(\d+ cases\)\n$/,
    );
    assert.equal(run.stderr, '');
  });

  test('broken directories: exit 1, one file:line:col: Kind/id: message line per problem', async () => {
    const run = await syncline('validate', 'test/fixtures/invalid/unknown-kind', 'test/fixtures/invalid/missing-system');
    assert.equal(run.code, 1);
    assert.deepEqual(lines(run.stdout), [
      "test/fixtures/invalid/missing-system/syncs.yaml:4:19: Sync/crm-to-erp: target.system: unknown System 'epr'; did you mean 'erp'?",
      "test/fixtures/invalid/unknown-kind/defs.yaml:1:7: unknown kind 'Sink'; use one of: System, Sync, Webhook, Flow, ApiClient",
    ]);
    assert.equal(run.stderr, '2 problems in 2 files\n');
  });

  test("a System's limits out of range: one file:line:col line each", async () => {
    const run = await syncline('validate', 'test/fixtures/invalid/system-limits');
    assert.equal(run.code, 1);
    const out = lines(run.stdout);
    assert.equal(out.length, 8, run.stdout);
    assert.ok(
      out.includes('test/fixtures/invalid/system-limits/systems.yaml:7:14: System/crm: limits.queryRows: 0 is out of range: must be >= 1'),
      run.stdout,
    );
    assert.ok(
      out.includes(
        'test/fixtures/invalid/system-limits/systems.yaml:24:21: System/erp: limits.statementTimeout: a statement timeout of 0 would stop every statement; give a duration such as 30s',
      ),
      run.stdout,
    );
  });

  test('--format json: parseable, with valid and problems as data; several directories form one set', async () => {
    // The extension refers to systems crm and erp, which only the other directory defines.
    const run = await syncline(
      'validate',
      '--format',
      'json',
      'test/fixtures/valid/quickstart-extension',
      'test/fixtures/invalid/missing-system',
    );
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      valid: false,
      problems: [
        {
          file: 'test/fixtures/invalid/missing-system/syncs.yaml',
          line: 4,
          column: 19,
          kind: 'Sync',
          id: 'crm-to-erp',
          code: 'unknown-reference',
          message: "target.system: unknown System 'epr'; did you mean 'erp'?",
          severity: 'error',
        },
      ],
    });
  });

  test('warnings are printed and marked, and leave the exit code 0', async () => {
    const dir = 'test/fixtures/invalid/warnings-first-only-save-without-write-mapping';
    const [text, json] = await Promise.all([syncline('validate', dir), syncline('validate', '--format', 'json', dir)]);
    assert.equal(text.code, 0, text.stderr);
    const printed = lines(text.stdout);
    assert.equal(printed.length, 3, text.stdout);
    assert.match(
      printed[0]!,
      new RegExp(
        `^${dir}/webhooks\\.yaml:7:12: warning: Webhook/wh_customerLookup00001: firstOnly answers the first record of an unsorted result`,
      ),
    );
    assert.match(printed[1]!, /webhooks\.yaml:21:9: warning: Webhook\/wh_saveAccount000000001: saveWithSystem without writeMapping/);
    assert.match(printed[2]!, /^valid: 3 files \(2 System, 1 Sync, 5 Webhook, 0 Flow, 0 ApiClient\), with 2 warnings$/);
    assert.equal(json.code, 0, json.stderr);
    const body = JSON.parse(json.stdout) as { valid: boolean; problems: Array<{ code: string; severity: string }> };
    assert.equal(body.valid, true);
    assert.deepEqual(
      body.problems.map((problem) => [problem.code, problem.severity]),
      [
        ['first-without-order', 'warning'],
        ['write-mapping-missing', 'warning'],
      ],
    );
  });

  test('an error beside a warning fails, and the summary counts both', async () => {
    const run = await syncline(
      'validate',
      'test/fixtures/invalid/warnings-first-only-save-without-write-mapping',
      'test/fixtures/invalid/unknown-kind',
    );
    assert.equal(run.code, 1);
    assert.equal(lines(run.stdout).length, 3, run.stdout);
    assert.equal(run.stderr, '3 problems (2 warnings) in 2 files\n');
  });

  test('a definition file linked from outside the directory is refused without showing what it holds', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'syncline-validate-link-'));
    try {
      const outside = join(scratch, 'outside');
      mkdirSync(join(outside, 'shared'), { recursive: true });
      writeFileSync(join(outside, 'private.yaml'), 'root:x:0:0:CONFIDENTIAL-LINE-1\n');
      writeFileSync(join(outside, 'shared', 'more.yaml'), 'CONFIDENTIAL-LINE-2: [\n');
      const definitions = join(scratch, 'definitions');
      mkdirSync(definitions);
      symlinkSync(join(outside, 'private.yaml'), join(definitions, 'systems.yaml'));
      symlinkSync(join(outside, 'shared'), join(definitions, 'shared'));
      const [text, json] = await Promise.all([syncline('validate', definitions), syncline('validate', '--format', 'json', definitions)]);
      assert.equal(text.code, 1);
      assert.deepEqual(lines(text.stdout), [
        `${join(definitions, 'shared')}:1:1: this symbolic link leads to a directory outside the definitions directory ${definitions}, which is not read; copy the directory into the directory or point the link at one inside it`,
        `${join(definitions, 'systems.yaml')}:1:1: this symbolic link leads to a file outside the definitions directory ${definitions}, which is not read; copy the file into the directory or point the link at one inside it`,
      ]);
      assert.deepEqual(
        JSON.parse(json.stdout).problems.map((problem: { code: string }) => problem.code),
        ['link-outside', 'link-outside'],
      );
      for (const run of [text, json]) assert.ok(!/CONFIDENTIAL/.test(run.stdout + run.stderr), 'the targets are not shown');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test('a definition file named as an argument that links outside its directory is refused without showing what it holds', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'syncline-validate-arg-link-'));
    try {
      const outside = join(scratch, 'outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'passwd'), 'root:x:0:0:CONFIDENTIAL-LINE-3\n');
      const definitions = join(scratch, 'defs');
      mkdirSync(join(definitions, 'inside'), { recursive: true });
      writeFileSync(join(definitions, 'inside', 'flow.yaml'), 'kind: Flow\nid: linked-inside\nsteps: [{ log: hello }]\n');
      symlinkSync(join(outside, 'passwd'), join(definitions, 'passwd.yaml'));
      // A link that stays inside its directory is read as before: its problem is reported.
      symlinkSync(join(definitions, 'inside', 'flow.yaml'), join(definitions, 'flow.yaml'));
      const args = [join(definitions, 'flow.yaml'), join(definitions, 'passwd.yaml')];
      const [text, json] = await Promise.all([syncline('validate', ...args), syncline('validate', '--format', 'json', ...args)]);
      assert.equal(text.code, 1);
      assert.deepEqual(lines(text.stdout), [
        `${join(definitions, 'flow.yaml')}:3:11: Flow/linked-inside: steps[0]: unknown property 'log'; allowed: sync, flow, name, continueOnError`,
        `${join(definitions, 'passwd.yaml')}:1:1: this symbolic link leads to a file outside its directory ${definitions}, which is not read; copy the file into the directory, point the link at one inside it, or name the file itself`,
      ]);
      assert.deepEqual(
        JSON.parse(json.stdout).problems.map((problem: { code: string; file: string }) => [problem.code, problem.file]),
        [
          ['schema-unknown-property', join(definitions, 'flow.yaml')],
          ['link-outside', join(definitions, 'passwd.yaml')],
        ],
      );
      for (const run of [text, json]) assert.ok(!/CONFIDENTIAL/.test(run.stdout + run.stderr), 'the target is not shown');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  test('unusable arguments exit 2 with a message on stderr', async () => {
    const [missing, format, none] = await Promise.all([
      syncline('validate', 'test/fixtures/no-such-directory'),
      syncline('validate', '--format', 'xml', 'examples/quickstart'),
      syncline(),
    ]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /test\/fixtures\/no-such-directory: no such file or directory/);
    assert.equal(format.code, 2);
    assert.match(format.stderr, /'xml' is invalid\. Allowed choices are text, json, github, junit, sarif/);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /Usage: syncline/);
    for (const run of [missing, format, none]) assert.equal(run.stdout, '');
  });
});

describe('syncline schema', { concurrency: true }, () => {
  const committed = readFileSync(join(repo, 'definitions', 'syncline.schema.json'), 'utf8');

  test('prints a draft 2020-12 JSON Schema, identical to the committed definitions/syncline.schema.json', async () => {
    const run = await syncline('schema');
    assert.equal(run.code, 0, run.stderr);
    const schema = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(
      run.stdout,
      committed,
      'definitions/syncline.schema.json is stale: run `node bin/syncline-dev.js schema --out definitions/syncline.schema.json`',
    );
  });

  test('the editor schema accepts every quickstart document and rejects an unknown property', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(committed) as object);
    const quickstart = join(repo, 'examples', 'quickstart');
    const documents = readdirSync(quickstart)
      .filter((name) => /\.ya?ml$/.test(name))
      .flatMap((name) => parseAllDocuments(readFileSync(join(quickstart, name), 'utf8')) as Array<{ toJS(): unknown }>)
      .map((document) => document.toJS() as Record<string, any>);
    assert.deepEqual(documents.map((d) => d.kind).sort(), ['ApiClient', 'Sync', 'System', 'System', 'Test', 'Test', 'Webhook']);
    for (const document of documents) {
      assert.ok(validate(document), `${document.kind}/${document.id}: ${JSON.stringify(validate.errors)}`);
    }

    const sync = structuredClone(documents.find((d) => d.kind === 'Sync')!);
    sync.match.onNoMach = 'skip';
    assert.equal(validate(sync), false);
    assert.ok(
      validate.errors?.some(
        (e) => e.keyword === 'additionalProperties' && e.instancePath === '/match' && e.params.additionalProperty === 'onNoMach',
      ),
      JSON.stringify(validate.errors),
    );
    const system = structuredClone(documents.find((d) => d.kind === 'System')!);
    system.objects.Customer.tabel = 'customers';
    assert.equal(validate(system), false, 'a connector-specific object option is checked too');
    const tests = structuredClone(documents.find((d) => d.kind === 'Test')!);
    tests.cases[0].outptu = tests.cases[0].output;
    assert.equal(validate(tests), false, 'a test file is checked by the same schema');
    assert.ok(
      validate.errors?.some((e) => e.keyword === 'additionalProperties' && e.params.additionalProperty === 'outptu'),
      JSON.stringify(validate.errors),
    );
  });
});
