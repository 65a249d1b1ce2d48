/**
 * What a valid definitions directory becomes through `loadDefinitions`: a frozen snapshot with
 * defaults applied, substitutions resolved, secrets reduced to hashes, and only the files that are
 * definitions read.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConnectorSpecs } from '../../../connectors/index.js';
import { loadDefinitions, type LoadOptions } from '../../../definitions/load-definitions.js';
import { formatProblem } from '../../../definitions/problem.js';
import type { Snapshot } from '../../../definitions/snapshot.js';

/** The registered connectors, which the definitions are checked against. */
const connectors = await loadConnectorSpecs();

const quickstart = fileURLToPath(new URL('../../../examples/quickstart/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'syncline-loader-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

let dirCount = 0;
/** A fresh definitions directory holding `files` (paths may contain folders). */
function definitionsDir(files: Record<string, string>): string {
  const dir = join(scratch, `defs-${++dirCount}`);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  return dir;
}

/** Loads and insists on success, showing the problems when there are any. */
async function load(paths: string[], options: Omit<LoadOptions, 'connectors'> = { env: {} }): Promise<Snapshot> {
  const result = await loadDefinitions(paths, { connectors, ...options });
  assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
  return result.snapshot;
}

const systems = `kind: System
id: crm
connector: sql
connection: { client: sqlite3, filename: crm.sqlite }
objects:
  Customer:
    table: customers
    key: [id]
    fields:
      id: { type: Integer }
      name: { type: String }
      email: { type: String }
---
kind: System
id: erp
connector: sql
connection: { client: sqlite3, filename: erp.sqlite }
objects:
  Account:
    table: accounts
    key: [Email]
    fields:
      Email: { type: String }
      AccountName: { type: String }
`;

const minimalSync = `kind: Sync
id: crm-to-erp
source: { system: crm, object: Customer }
target: { system: erp, object: Account }
mapping: '{ "AccountName": name, "Email": email }'
match:
  where: "Email = #Email#"
`;

describe('the quickstart', () => {
  test('loads into a snapshot with every definition, its origin and its compiled parts', async () => {
    const snapshot = await load([quickstart], { env: {} });
    assert.deepEqual([...snapshot.systems.keys()].sort(), ['crm', 'erp']);
    assert.deepEqual([...snapshot.syncs.keys()], ['crm-customers-to-erp']);
    assert.deepEqual([...snapshot.webhooks.keys()], ['wh_crmCustomerChanged01']);
    assert.deepEqual([...snapshot.apiClients.keys()], ['quickstart-operator']);
    assert.equal(snapshot.flows.size, 0);
    assert.equal(snapshot.files.length, 4);
    assert.match(snapshot.digest, /^[0-9a-f]{64}$/);

    const sync = snapshot.syncs.get('crm-customers-to-erp')!;
    assert.match(sync.origin.file, /syncs\.yaml$/);
    assert.deepEqual({ line: sync.origin.line, column: sync.origin.column }, { line: 7, column: 1 });
    assert.ok(sync.where && sync.precondition && sync.matchWhere && sync.order, 'expressions are parsed once, at load');
    const mapped = await sync.mapping.evaluate({
      id: 7,
      name: 'Ada',
      email: 'ADA@EXAMPLE.COM',
      addresses: { main: { city: 'Oslo', country: 'NO' } },
    });
    assert.equal(mapped.AccountNumber, 'C-7');
    assert.equal(mapped.Email, 'ada@example.com');
    assert.ok(snapshot.webhooks.get('wh_crmCustomerChanged01')!.validateRequest, 'the request schema is compiled');
  });

  test('its query description is read whole (an unquoted " #FlowFilter#" would be a YAML comment)', async () => {
    const snapshot = await load([quickstart], { env: {} });
    const query = snapshot.systems.get('crm')!.definition.queries.activeCustomersByCity!;
    assert.match(query.description ?? '', /#FlowFilter# takes the caller's filter/);
    assert.match(query.statement, /AND #FlowFilter#$/);
  });

  test('the same files give the same digest; a changed file a different one', async () => {
    const dir = definitionsDir({ 'systems.yaml': systems });
    const first = await load([dir]);
    assert.equal((await load([dir])).digest, first.digest);
    writeFileSync(join(dir, 'systems.yaml'), systems.replace('crm.sqlite', 'crm2.sqlite'));
    assert.notEqual((await load([dir])).digest, first.digest);
  });
});

describe('the snapshot is immutable', () => {
  test('the snapshot, its maps and its definitions are frozen all the way down', async () => {
    const snapshot = await load([quickstart], { env: {} });
    assert.ok(Object.isFrozen(snapshot));
    assert.ok(Object.isFrozen(snapshot.files));
    const sync = snapshot.syncs.get('crm-customers-to-erp')!;
    assert.ok(Object.isFrozen(sync));
    assert.ok(Object.isFrozen(sync.definition));
    assert.ok(Object.isFrozen(sync.definition.source));
    assert.ok(Object.isFrozen(sync.definition.retries));
    assert.ok(Object.isFrozen(snapshot.systems.get('crm')!.definition.objects.Customer!.fields.id));
    assert.throws(() => {
      (sync.definition as { batchSize: number }).batchSize = 1;
    }, TypeError);
  });

  test('its maps refuse set, delete and clear', async () => {
    const snapshot = await load([quickstart], { env: {} });
    const maps = [snapshot.systems, snapshot.syncs, snapshot.webhooks, snapshot.flows, snapshot.apiClients];
    for (const map of maps) {
      const writable = map as Map<string, unknown>;
      assert.throws(() => writable.set('intruder', {}), /immutable/);
      assert.throws(() => writable.delete([...map.keys()][0] ?? 'x'), /immutable/);
      assert.throws(() => writable.clear(), /immutable/);
    }
    assert.equal(snapshot.systems.size, 2);
  });
});

describe('defaults', () => {
  test('a sync gets retries, batchSize, timeout, maxErrors, webhookTypes and match rules', async () => {
    const snapshot = await load([definitionsDir({ 'systems.yaml': systems, 'syncs.yaml': minimalSync })]);
    const sync = snapshot.syncs.get('crm-to-erp')!.definition;
    assert.deepEqual(sync.retries, { max: 3, backoff: '30s', maxBackoff: '1h' });
    assert.equal(sync.batchSize, 500);
    assert.equal(sync.timeout, '30m');
    assert.equal(sync.maxErrors, 100);
    assert.deepEqual(sync.webhookTypes, []);
    assert.deepEqual(sync.match, { where: 'Email = #Email#', onNoMatch: 'create', onMatch: 'update', onMultipleMatches: 'fail' });
  });

  test('defaults fill in around what is written, never over it', async () => {
    const sync = `${minimalSync}retries: { max: 0 }\nbatchSize: 50\n`;
    const snapshot = await load([definitionsDir({ 'systems.yaml': systems, 'syncs.yaml': sync })]);
    const definition = snapshot.syncs.get('crm-to-erp')!.definition;
    assert.deepEqual(definition.retries, { max: 0, backoff: '30s', maxBackoff: '1h' });
    assert.equal(definition.batchSize, 50);
  });

  test('a webhook is active, does not log payloads and keeps its log 30 days', async () => {
    const webhook = `kind: Webhook\nid: wh_customerChanged0001\naction: startSync\nsync: crm-to-erp\n`;
    const snapshot = await load([definitionsDir({ 'systems.yaml': systems, 'syncs.yaml': minimalSync, 'webhooks.yaml': webhook })]);
    const definition = snapshot.webhooks.get('wh_customerChanged0001')!.definition;
    assert.equal(definition.active, true);
    assert.equal(definition.logPayload, false);
    assert.equal(definition.logRetention, '30d');
    assert.equal(definition.recordStore, false);
  });

  test('a system has readOnly false and empty queries; an object field is not required', async () => {
    const snapshot = await load([definitionsDir({ 'systems.yaml': systems })]);
    const crm = snapshot.systems.get('crm')!.definition;
    assert.equal(crm.readOnly, false);
    assert.deepEqual(crm.queries, {});
    assert.deepEqual(crm.objects.Customer!.fields.name, { type: 'String', required: false, readOnly: false });
  });
});

describe('merge keys', () => {
  test('<<: *anchor merges a map of the same document, keys written beside it winning, with substitutions in it', async () => {
    const dir = definitionsDir({
      'systems.yaml': `kind: System
id: crm
connector: sql
connection:
  <<: { client: "\${env:CRM_CLIENT:-pg}", filename: crm.sqlite }
  filename: crm2.sqlite
objects:
  Customer:
    table: customers
    key: [id]
    fields: &audited
      id: { type: Integer }
      updated: { type: DateTime }
  Order:
    table: orders
    key: [id]
    fields:
      <<: *audited
      updated: { type: String }
      total: { type: Number }
`,
    });
    const crm = (await load([dir], { env: { CRM_CLIENT: 'sqlite3' } })).systems.get('crm')!.definition;
    assert.deepEqual([crm.connection.client, crm.connection.filename], ['sqlite3', 'crm2.sqlite']);
    const types = Object.fromEntries(Object.entries(crm.objects!.Order!.fields).map(([name, field]) => [name, field.type]));
    assert.deepEqual(types, { id: 'Integer', updated: 'String', total: 'Number' });
  });
});

describe('substitution', () => {
  const withPassword = (password: string) => `kind: System
id: crm
connector: sql
connection:
  client: pg
  url: postgres://crm@db.internal/crm
  password: ${password}
`;
  const passwordOf = (snapshot: Snapshot) => snapshot.systems.get('crm')!.definition.connection.password;

  test('${env:NAME:-default} takes the default when the variable is unset or empty', async () => {
    const dir = definitionsDir({ 'systems.yaml': withPassword('"${env:CRM_PASSWORD:-fallback}"') });
    assert.equal(passwordOf(await load([dir], { env: {} })), 'fallback');
    assert.equal(passwordOf(await load([dir], { env: { CRM_PASSWORD: '' } })), 'fallback');
    assert.equal(passwordOf(await load([dir], { env: { CRM_PASSWORD: 'from-env' } })), 'from-env');
  });

  test('${env:NAME} takes the variable, also when it is set but empty, and only from the given env', async () => {
    const dir = definitionsDir({ 'systems.yaml': withPassword('"pre-${env:CRM_PASSWORD}-post"') });
    assert.equal(passwordOf(await load([dir], { env: { CRM_PASSWORD: 's3cret' } })), 'pre-s3cret-post');
    assert.equal(passwordOf(await load([dir], { env: { CRM_PASSWORD: '' } })), 'pre--post');
    const unset = await loadDefinitions([dir], { connectors, env: {} });
    assert.equal(unset.ok, false);
  });

  test('${file:path} inside the directory is read, minus one trailing newline', async () => {
    const dir = definitionsDir({
      'systems/crm.yaml': withPassword('${file:../secrets/crm-password.txt}'),
      'secrets/crm-password.txt': 's3cret\n',
    });
    assert.equal(passwordOf(await load([dir])), 's3cret');
    writeFileSync(join(dir, 'secrets', 'crm-password.txt'), 'two lines\nend\n\n');
    assert.equal(passwordOf(await load([dir])), 'two lines\nend\n', 'only one newline is dropped');
    writeFileSync(join(dir, 'secrets', 'crm-password.txt'), 'windows\r\n');
    assert.equal(passwordOf(await load([dir])), 'windows');
  });

  test('${file:/absolute} reads a directory listed in SYNCLINE_SECRET_DIRS, and nothing else outside', async () => {
    const mounted = join(scratch, `run-secrets-${++dirCount}`);
    const elsewhere = join(scratch, `elsewhere-${dirCount}`);
    mkdirSync(mounted);
    mkdirSync(elsewhere);
    writeFileSync(join(mounted, 'crm-password'), 'from-the-mount\n');
    writeFileSync(join(elsewhere, 'crm-password'), 'not-to-be-read\n');
    // A link inside the listed directory that leads out of it is judged by where it leads.
    symlinkSync(join(elsewhere, 'crm-password'), join(mounted, 'linked-out'));
    const secretDirs = { SYNCLINE_SECRET_DIRS: ['relative/ignored', mounted].join(delimiter) };
    const read = definitionsDir({ 'systems.yaml': withPassword(`\${file:${join(mounted, 'crm-password')}}`) });
    assert.equal(passwordOf(await load([read], { env: secretDirs })), 'from-the-mount');
    const refusals = async (path: string, env: Record<string, string>): Promise<string[]> => {
      const dir = definitionsDir({ 'systems.yaml': withPassword(`\${file:${path}}`) });
      const result = await loadDefinitions([dir], { connectors, env });
      assert.equal(result.ok, false);
      return result.problems.map((problem) => `${problem.code}: ${problem.message}`);
    };
    const [unlisted] = await refusals(join(mounted, 'crm-password'), {});
    assert.match(
      unlisted!,
      /^file-outside: file '.*crm-password' is outside the definitions directory .*; .* list the directory that holds them in SYNCLINE_SECRET_DIRS$/,
    );
    for (const path of [
      join(elsewhere, 'crm-password'),
      join(mounted, 'linked-out'),
      join(mounted, '..', basename(elsewhere), 'crm-password'),
    ]) {
      const [problem] = await refusals(path, secretDirs);
      assert.match(problem!, /^file-outside: .* is outside the definitions directory .* or SYNCLINE_SECRET_DIRS \(/);
      assert.doesNotMatch(problem!, /not-to-be-read/);
    }
  });

  test('$${ writes a literal ${ and is not substituted', async () => {
    const dir = definitionsDir({ 'systems.yaml': withPassword('"a$${env:NOT_READ}b ${env:CRM_PASSWORD}"') });
    assert.equal(passwordOf(await load([dir], { env: { CRM_PASSWORD: 'x', NOT_READ: 'leaked' } })), 'a${env:NOT_READ}b x');
  });

  test('substituted values are data: they are not parsed as YAML again', async () => {
    const dir = definitionsDir({ 'systems.yaml': withPassword('${env:CRM_PASSWORD}') });
    assert.equal(passwordOf(await load([dir], { env: { CRM_PASSWORD: '{ a: 1 } # not a comment' } })), '{ a: 1 } # not a comment');
  });
});

describe('ApiClient tokens', () => {
  test('the snapshot keeps only the SHA-256 of the token', async () => {
    const token = 'a-long-enough-bearer-token-0123456789';
    const client = 'kind: ApiClient\nid: reporting\ntoken: ${env:REPORTING_TOKEN}\nscopes: [systems:read]\nsystems: [crm]\n';
    const snapshot = await load([definitionsDir({ 'systems.yaml': systems, 'clients.yaml': client })], { env: { REPORTING_TOKEN: token } });
    const entry = snapshot.apiClients.get('reporting')!;
    assert.ok(!('token' in entry.definition));
    assert.ok(!JSON.stringify(entry).includes(token));
    assert.deepEqual(entry.tokenHash, createHash('sha256').update(token).digest());
    assert.deepEqual(entry.definition.scopes, ['systems:read']);
  });

  test('tokenSha256 is taken as it is written', async () => {
    const hash = createHash('sha256').update('some-other-token-0123456789').digest('hex');
    const client = `kind: ApiClient\nid: ops\ntokenSha256: ${hash}\nscopes: [queue:read, console]\n`;
    const snapshot = await load([definitionsDir({ 'clients.yaml': client })]);
    assert.equal(snapshot.apiClients.get('ops')!.tokenHash.toString('hex'), hash);
  });
});

describe('files and documents', () => {
  test('several documents in one file, and .yml as well as .yaml files, in nested folders', async () => {
    const dir = definitionsDir({
      'systems/all.yml': systems,
      'syncs/customers/crm-to-erp.YAML': minimalSync,
    });
    const snapshot = await load([dir]);
    assert.deepEqual([...snapshot.systems.keys()].sort(), ['crm', 'erp']);
    assert.ok(snapshot.syncs.has('crm-to-erp'));
    assert.equal(snapshot.files.length, 2);
    // Each definition knows its own document's position, also the second one of a file.
    assert.equal(snapshot.systems.get('erp')!.origin.line, 14);
  });

  test('node_modules, hidden folders and other extensions are not read', async () => {
    const broken = 'this: [is not, a definition\n';
    const dir = definitionsDir({
      'systems.yaml': systems,
      'node_modules/some-package/config.yaml': broken,
      '.git/config.yaml': broken,
      '.drafts/sync.yaml': broken,
      'notes.txt': broken,
      'README.md': broken,
      'systems.yaml.bak': broken,
    });
    const snapshot = await load([dir]);
    assert.equal(snapshot.files.length, 1);
    assert.match(snapshot.files[0]!, /systems\.yaml$/);
  });

  test('empty documents, comment-only files and empty files define nothing', async () => {
    const dir = definitionsDir({
      'systems.yaml': `# The systems\n---\n${systems}---\n# nothing more\n---\n`,
      'empty.yaml': '',
      'comments.yml': '# to do: the ERP flows\n',
      'separators.yaml': '---\n---\n...\n',
    });
    const snapshot = await load([dir]);
    assert.equal(snapshot.systems.size, 2);
    assert.equal(snapshot.files.length, 4);
  });

  test('a single file may be given instead of a directory, and several paths load as one set', async () => {
    const systemsDir = definitionsDir({ 'systems.yaml': systems });
    const syncsDir = definitionsDir({ 'crm-to-erp.yaml': minimalSync });
    const snapshot = await load([join(systemsDir, 'systems.yaml'), syncsDir]);
    assert.equal(snapshot.systems.size, 2);
    assert.ok(snapshot.syncs.has('crm-to-erp'));
  });

  test('a few aliases for shared blocks are fine', async () => {
    const shared = `kind: System
id: shop
connector: sql
connection: { client: sqlite3, filename: shop.sqlite }
objects:
  Order:
    table: orders
    key: [id]
    fields: &orderFields
      id: { type: Integer }
      total: { type: Number }
  ArchivedOrder:
    table: archived_orders
    key: [id]
    fields: *orderFields
`;
    const snapshot = await load([definitionsDir({ 'shop.yaml': shared })]);
    assert.deepEqual(snapshot.systems.get('shop')!.definition.objects.ArchivedOrder!.fields.total, {
      type: 'Number',
      required: false,
      readOnly: false,
    });
  });
});

test('a directory without definition files is a problem, not an empty valid set', async () => {
  const empty = definitionsDir({ 'notes.txt': 'not a definition' });
  const result = await loadDefinitions([quickstart, empty], { connectors, env: {} });
  assert.equal(result.ok, false);
  assert.deepEqual(
    result.problems.map((p) => [p.file, p.line, p.column, p.code]),
    [[empty, 1, 1, 'no-definitions']],
  );
});

test('a problem line shows control characters and reordering marks of the file as escapes, never raw', async () => {
  const dir = definitionsDir({
    'clients.yaml': `kind: ApiClient\nid: "x\\e[2J\\e[31mFAKE: all valid\\e[0m\\u202Ecba"\ntokenSha256: ${'0'.repeat(64)}\nscopes: [queue:read]\n`,
  });
  const result = await loadDefinitions([dir], { connectors, env: {} });
  assert.ok(!result.ok);
  const lines = result.problems.map(formatProblem);
  assert.ok(lines.length > 0);
  for (const line of lines) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be there.
    assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u202e]/, line);
  }
  assert.ok(
    lines.some((line) => line.includes('ApiClient/x\\u001b[2J\\u001b[31mFAKE: all valid\\u001b[0m\\u202ecba')),
    lines.join('\n'),
  );
});

test('a tag YAML does not know is a warning at the tag, and the value is read as written', async () => {
  const dir = definitionsDir({
    'clients.yaml': `kind: ApiClient\nid: reporting\ntokenSha256: !evil ${'0'.repeat(64)}\nscopes: [queue:read]\n`,
  });
  const result = await loadDefinitions([dir], { connectors, env: {} });
  assert.ok(result.ok, result.ok ? '' : result.problems.map(formatProblem).join('\n'));
  assert.deepEqual(
    result.problems.map((problem) => [problem.line, problem.column, problem.code, problem.severity]),
    [[3, 14, 'yaml-warning', 'warning']],
  );
  assert.match(result.problems[0]!.message, /Unresolved tag: !evil; it is ignored/);
  assert.equal(result.snapshot.apiClients.get('reporting')?.definition.tokenSha256, '0'.repeat(64));
});
