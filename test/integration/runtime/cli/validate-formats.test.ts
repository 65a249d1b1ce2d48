/**
 * `syncline validate --format github|junit|sarif` and `--strict`, as a CI job runs them: the real
 * command in a child process on fixture directories with errors and warnings, its exit code, and
 * its report read back the way the CI reads it (annotation lines, JUnit XML parsed, SARIF checked
 * against the fields GitHub code scanning requires).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import addFormatsModule from 'ajv-formats';
import { Ajv } from 'ajv';
import { XMLParser } from 'fast-xml-parser';
import { projectRoot, runCli } from '../../../support/cli-process.js';
import { sarifForGithubSchema } from '../../../support/sarif-for-github.js';

type AddFormats = (ajv: Ajv) => unknown;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

const warnings = 'test/fixtures/invalid/warnings-first-only-save-without-write-mapping';
const unknownKind = 'test/fixtures/invalid/unknown-kind';
const withoutEffect = 'test/fixtures/invalid/webhook-setting-without-effect';

/** The command from the repository root, with the repository as the GitHub workspace unless told otherwise. */
const validate = (args: string[], env: Record<string, string> = {}) =>
  runCli(['validate', ...args], { env: { GITHUB_WORKSPACE: projectRoot, ...env } });

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

/** A definitions directory whose problems carry the characters workflow commands escape. */
const scratch = mkdtempSync(join(tmpdir(), 'syncline-formats-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const escapes = join(scratch, 'escapes');
mkdirSync(escapes);
writeFileSync(
  join(escapes, 'defs.yaml'),
  [
    'kind: System',
    'id: crm',
    'connector: sql',
    'connection: { client: sqlite3, filename: crm.sqlite }',
    'objects:',
    '  Customer: { table: customers, key: [id], fields: { id: { type: Integer }, name: { type: String } } }',
    '---',
    'kind: Sync',
    'id: copy-daily',
    'source: { system: crm, object: Customer }',
    // A reference holding a per cent sign, a colon, a comma and a line break: the message quotes it.
    'target: { system: "erp:50%,\\r\\nnext", object: Account }',
    `mapping: '{ "name": name }'`,
    '---',
    'kind: Sync',
    // An id the schema refuses: it is quoted in the title property, where : and , must be escaped.
    'id: "copy:100%,weekly"',
    'source: { system: crm, object: Customer }',
    'target: { system: crm, object: Customer }',
    `mapping: '{ "name": name }'`,
    '',
  ].join('\n'),
);

describe('syncline validate --format github', { concurrency: true }, () => {
  test('one workflow command per problem: ::error and ::warning with file, line, col and title', async () => {
    const run = await validate(['--format', 'github', unknownKind, warnings]);
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(lines(run.stdout), [
      `::error file=${unknownKind}/defs.yaml,line=1,col=7,title=unknown-kind::unknown kind 'Sink'; use one of: System, Sync, Webhook, Flow, ApiClient`,
      `::warning file=${warnings}/webhooks.yaml,line=7,col=12,title=Webhook/wh_customerLookup00001 (first-without-order)::firstOnly answers the first record of an unsorted result, which may be a different one on each call; set order (e.g. order: 'id desc')`,
      `::warning file=${warnings}/webhooks.yaml,line=21,col=9,title=Webhook/wh_saveAccount000000001 (write-mapping-missing)::saveWithSystem without writeMapping writes every property a caller sends as a field of erp/Account, its key included; add a writeMapping naming the fields a call may set (e.g. writeMapping: '{ "name": name }'), or a requestSchema with additionalProperties: false`,
    ]);
    assert.equal(run.stderr, '3 problems (2 warnings) in 2 files\n');
  });

  test('paths are relative to GITHUB_WORKSPACE, where the repository is checked out', async () => {
    const run = await validate(['--format', 'github', unknownKind], { GITHUB_WORKSPACE: join(projectRoot, 'test') });
    assert.match(run.stdout, /^::error file=fixtures\/invalid\/unknown-kind\/defs\.yaml,line=1,col=7,/);
  });

  test('escapes % and line breaks in the message, and also : and , in properties', async () => {
    const run = await validate(['--format', 'github', escapes]);
    assert.equal(run.code, 1, run.stderr);
    const file = join(escapes, 'defs.yaml').replaceAll(':', '%3A').replaceAll(',', '%2C');
    assert.deepEqual(lines(run.stdout), [
      `::error file=${file},line=11,col=19,title=Sync/copy-daily (unknown-reference)::target.system: unknown System 'erp:50%25,%0D%0Anext' (defined: crm)`,
      `::error file=${file},line=15,col=5,title=Sync/copy%3A100%25%2Cweekly (schema-pattern)::id: 'copy:100%25,weekly' has the wrong form; expected identifier, unique within its kind: letters, digits, '_', '-' and '.', starting with a letter or digit`,
    ]);
  });

  test('valid definitions: no annotation, the "valid:" summary on standard error', async () => {
    const run = await validate(['--format', 'github', 'examples/quickstart']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^valid: \d+ files \(/);
  });
});

describe('syncline validate --format junit', { concurrency: true }, () => {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    // Character references (&#10; in an attribute) read back as the characters, as any XML reader does.
    htmlEntities: true,
    isArray: (name) => name === 'testsuite' || name === 'testcase',
  });

  interface Case {
    name: string;
    classname: string;
    failure?: { message: string; type: string; '#text': string };
    'system-out'?: string;
  }
  interface Suite {
    name: string;
    file: string;
    tests: string;
    failures: string;
    testcase: Case[];
  }
  const parse = (xml: string) => parser.parse(xml).testsuites as { name: string; tests: string; failures: string; testsuite: Suite[] };

  test('a suite per file, a case per definition: broken ones fail, valid ones pass, warnings beside them', async () => {
    const run = await validate(['--format', 'junit', unknownKind, warnings]);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, '3 problems (2 warnings) in 2 files\n');
    const report = parse(run.stdout);
    assert.equal(report.name, 'syncline validate');
    assert.deepEqual(
      report.testsuite.map((suite) => [suite.name, suite.tests, suite.failures]),
      [
        [`${unknownKind}/defs.yaml`, '1', '1'],
        [`${warnings}/syncs.yaml`, '1', '0'],
        [`${warnings}/systems.yaml`, '2', '0'],
        [`${warnings}/webhooks.yaml`, '5', '0'],
      ],
    );
    assert.equal(report.tests, '9');
    assert.equal(report.failures, '1');
    const [broken] = report.testsuite[0]!.testcase;
    // The kind is unknown, but the document says kind and id: the case is named as it says.
    assert.equal(broken!.name, 'Sink/crm-to-erp');
    assert.equal(broken!.failure!.type, 'unknown-kind');
    assert.equal(
      broken!.failure!['#text'],
      `${unknownKind}/defs.yaml:1:7: unknown kind 'Sink'; use one of: System, Sync, Webhook, Flow, ApiClient`,
    );
    assert.deepEqual(
      report.testsuite[2]!.testcase.map((c) => [c.name, c.failure === undefined]),
      [
        ['System/crm', true],
        ['System/erp', true],
      ],
    );
    const hooks = report.testsuite[3]!.testcase;
    assert.deepEqual(
      hooks.map((c) => c.name),
      [
        'Webhook/wh_customerLookup00001',
        'Webhook/wh_customerNewest00001',
        'Webhook/wh_saveAccount000000001',
        'Webhook/wh_customerNewestQuery1',
        'Webhook/wh_customerThroughSync1',
      ],
    );
    assert.ok(hooks.every((c) => c.failure === undefined));
    assert.match(hooks[0]!['system-out']!, /webhooks\.yaml:7:12: warning: Webhook\/wh_customerLookup00001: firstOnly answers/);
    assert.equal(hooks[1]!['system-out'], undefined);
  });

  test('--strict: a warning fails its definition', async () => {
    const run = await validate(['--format', 'junit', '--strict', warnings]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, '2 problems (2 warnings) in 1 file; --strict: warnings fail\n');
    const hooks = parse(run.stdout).testsuite.find((suite) => suite.name.endsWith('webhooks.yaml'))!.testcase;
    assert.deepEqual(
      hooks.map((c) => c.failure?.type ?? 'passed'),
      ['first-without-order', 'passed', 'write-mapping-missing', 'passed', 'passed'],
    );
  });

  test('several problems of one definition fail one case, each problem in its detail', async () => {
    const run = await validate(['--format', 'junit', escapes]);
    const [system, daily, weekly] = parse(run.stdout).testsuite[0]!.testcase;
    assert.equal(system!.name, 'System/crm');
    assert.equal(system!.failure, undefined);
    assert.equal(daily!.name, 'Sync/copy-daily');
    assert.match(daily!.failure!.message, /^target\.system: unknown System 'erp:50%,\r?\nnext'/);
    assert.equal(weekly!.name, 'Sync/copy:100%,weekly');
    assert.equal(weekly!.failure!.type, 'schema-pattern');
  });

  test('the quickstart: every definition a passing case', async () => {
    const run = await validate(['--format', 'junit', 'examples/quickstart']);
    assert.equal(run.code, 0, run.stderr);
    const report = parse(run.stdout);
    assert.equal(report.failures, '0');
    const names = report.testsuite.flatMap((suite) => suite.testcase.map((c) => c.name));
    assert.ok(names.includes('Sync/crm-customers-to-erp'), names.join(', '));
    assert.equal(names.length, 5, names.join(', '));
  });
});

describe('syncline validate --format sarif', { concurrency: true }, () => {
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats(ajv);
  const accepts = ajv.compile(sarifForGithubSchema);

  interface Sarif {
    version: string;
    runs: Array<{
      tool: { driver: { name: string; version: string; rules: Array<{ id: string; shortDescription: { text: string } }> } };
      originalUriBaseIds: Record<string, { uri: string }>;
      invocations: Array<{ executionSuccessful: boolean; exitCode: number }>;
      results: Array<{
        ruleId: string;
        ruleIndex: number;
        level: string;
        message: { text: string };
        locations: Array<{ physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: Record<string, number> } }>;
      }>;
    }>;
  }

  test('SARIF 2.1.0 with the fields code scanning needs: rules per code, results with level and a relative location', async () => {
    const run = await validate(['--format', 'sarif', unknownKind, warnings]);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, '3 problems (2 warnings) in 2 files\n');
    const log = JSON.parse(run.stdout) as Sarif;
    assert.ok(accepts(log), ajv.errorsText(accepts.errors));
    const [only] = log.runs;
    const { driver } = only!.tool;
    assert.equal(driver.name, 'syncline');
    const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    assert.equal(driver.version, version);
    assert.deepEqual(
      driver.rules.map((rule) => rule.id),
      ['first-without-order', 'unknown-kind', 'write-mapping-missing'],
    );
    assert.ok(
      driver.rules.every((rule) => !rule.shortDescription.text.startsWith('Definition problem')),
      'every rule is described',
    );
    assert.deepEqual(only!.originalUriBaseIds, { '%SRCROOT%': { uri: `${pathToFileURL(projectRoot).href.replace(/\/$/, '')}/` } });
    assert.deepEqual(only!.invocations, [{ executionSuccessful: true, exitCode: 1 }]);
    assert.deepEqual(
      only!.results.map((result) => [result.ruleId, driver.rules[result.ruleIndex]!.id, result.level]),
      [
        ['unknown-kind', 'unknown-kind', 'error'],
        ['first-without-order', 'first-without-order', 'warning'],
        ['write-mapping-missing', 'write-mapping-missing', 'warning'],
      ],
    );
    assert.deepEqual(only!.results[1]!.locations, [
      {
        physicalLocation: {
          artifactLocation: { uri: `${warnings}/webhooks.yaml`, uriBaseId: '%SRCROOT%' },
          region: { startLine: 7, startColumn: 12 },
        },
      },
    ]);
    assert.match(only!.results[1]!.message.text, /^Webhook\/wh_customerLookup00001: firstOnly answers/);
  });

  test('a warning that its action ignores a setting: level warning, exit 0; --strict: exit 1', async () => {
    const [plain, strict] = await Promise.all([
      validate(['--format', 'sarif', withoutEffect]),
      validate(['--format', 'sarif', '--strict', withoutEffect]),
    ]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(strict.code, 1, strict.stderr);
    for (const run of [plain, strict]) {
      const log = JSON.parse(run.stdout) as Sarif;
      assert.ok(accepts(log), ajv.errorsText(accepts.errors));
      assert.deepEqual(
        log.runs[0]!.results.map((result) => [result.ruleId, result.level]),
        [['setting-without-effect', 'warning']],
      );
    }
    assert.equal(JSON.parse(strict.stdout).runs[0].invocations[0].exitCode, 1);
    assert.match(strict.stderr, /; --strict: warnings fail\n$/);
  });

  test('valid definitions: a run without results, still accepted', async () => {
    const run = await validate(['--format', 'sarif', 'examples/quickstart']);
    assert.equal(run.code, 0, run.stderr);
    const log = JSON.parse(run.stdout) as Sarif;
    assert.ok(accepts(log), ajv.errorsText(accepts.errors));
    assert.deepEqual(log.runs[0]!.results, []);
    assert.deepEqual(log.runs[0]!.tool.driver.rules, []);
  });

  test('the schema used here refuses what GitHub refuses (a result without a location, line 0)', () => {
    const result = { ruleId: 'x', message: { text: 'm' }, locations: [] as unknown[] };
    const log = { version: '2.1.0', runs: [{ tool: { driver: { name: 'syncline' } }, results: [result] }] };
    assert.equal(accepts(log), false);
    result.locations = [{ physicalLocation: { artifactLocation: { uri: 'a.yaml' }, region: { startLine: 0 } } }];
    assert.equal(accepts(log), false);
    (result.locations[0] as { physicalLocation: { region: { startLine: number } } }).physicalLocation.region.startLine = 1;
    assert.equal(accepts(log), true);
  });
});

describe('syncline validate --strict', { concurrency: true }, () => {
  test('warnings alone: exit 0 without --strict, 1 with it, and the summary says why', async () => {
    const [plain, strict, json] = await Promise.all([
      validate([warnings]),
      validate(['--strict', warnings]),
      validate(['--strict', '--format', 'json', warnings]),
    ]);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(lines(plain.stdout).at(-1)!, /^valid: 3 files .*, with 2 warnings$/);
    assert.equal(strict.code, 1);
    assert.equal(lines(strict.stdout).length, 2, strict.stdout);
    assert.ok(lines(strict.stdout).every((line) => line.includes(': warning: ')));
    assert.equal(strict.stderr, '2 problems (2 warnings) in 1 file; --strict: warnings fail\n');
    assert.equal(json.code, 1);
    const body = JSON.parse(json.stdout) as { valid: boolean; strict: boolean; passed: boolean };
    assert.deepEqual([body.valid, body.strict, body.passed], [true, true, false]);
  });

  test('no warnings: --strict passes', async () => {
    const run = await validate(['--strict', 'examples/quickstart']);
    assert.equal(run.code, 0, run.stderr);
  });

  test('an unknown --format exits 2 and lists the formats', async () => {
    const run = await validate(['--format', 'xml', 'examples/quickstart']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /argument 'xml' is invalid\. Allowed choices are text, json, github, junit, sarif\./);
  });
});
