/**
 * Hot reload against real files: chokidar, the debounce, the loader and the snapshot holder
 * together. A valid edit swaps a whole new snapshot in; an invalid one is rejected whole while the
 * old snapshot keeps serving; and no reader ever sees a snapshot that mixes two states of the files.
 */
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, open, readdir, readFile, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it, type TestContext } from 'node:test';
import { loadConnectorSpecs } from '../../../connectors/index.js';
import { loadDefinitions } from '../../../definitions/load-definitions.js';
import type { Problem } from '../../../definitions/problem.js';
import { SnapshotHolder } from '../../../definitions/snapshot-holder.js';
import type { Snapshot } from '../../../definitions/snapshot.js';
import { minimumDebounceMs, watchDefinitions } from '../../../definitions/watch-definitions.js';

// Once every test here has ended, the file's process exits even if a watcher left a handle open:
// chokidar's close() landing while it scans a directory these tests create orphans that
// directory's fs.watch handle (chokidar issue 1482, fixed only in chokidar 6, which needs Node.js
// 22), and the process would otherwise never end, holding the whole test run with it.
after(() => {
  setTimeout(() => process.exit(), 2000).unref();
});

/** The registered connectors, which the definitions are checked against. */
const connectors = await loadConnectorSpecs();

const quickstart = resolve(import.meta.dirname, '../../../examples/quickstart');
/** Definitions see no environment but this, so a developer's CRM_DB cannot change the outcome. */
const env = {};

async function tempDir(t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `syncline-${prefix}-`));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function copyQuickstart(t: TestContext): Promise<string> {
  const dir = await tempDir(t, 'hot-reload');
  for (const name of await readdir(quickstart)) {
    if (name.endsWith('.yaml')) await copyFile(join(quickstart, name), join(dir, name));
  }
  return dir;
}

/** Loads `dir`, starts watching it, and stops the watcher when the test ends. */
async function startWatching(t: TestContext, dir: string, debounceMs?: number): Promise<SnapshotHolder> {
  const loaded = await loadDefinitions([dir], { connectors, env });
  assert.ok(loaded.ok, `the starting definitions are valid: ${JSON.stringify(loaded.problems)}`);
  const holder = new SnapshotHolder(loaded.snapshot);
  const watcher = watchDefinitions([dir], holder, { connectors, env, ...(debounceMs === undefined ? {} : { debounceMs }) });
  t.after(() => watcher.close());
  await watcher.ready;
  return holder;
}

/** Resolves once `condition` holds, checked now and after every swap or rejection. */
function until(holder: SnapshotHolder, condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  if (condition()) return Promise.resolve();
  return new Promise((resolvePromise, reject) => {
    const check = () => {
      if (!condition()) return;
      done();
      resolvePromise();
    };
    const timer = setTimeout(() => {
      done();
      const { ok, problems } = holder.status;
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last reload ok=${ok}, problems: ${JSON.stringify(problems)}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      holder.off('swap', check).off('rejected', check);
    };
    holder.on('swap', check).on('rejected', check);
  });
}

/** Replaces a file the way careful editors do: a sibling temporary file, then one rename. */
async function writeAtomically(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/** Line and column (1-based) of `needle` in `text`, as problems report them. */
function positionOf(text: string, needle: string): { line: number; column: number } {
  const offset = text.indexOf(needle);
  assert.ok(offset >= 0, `'${needle}' occurs in the file`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

function hasProblem(problems: readonly Problem[], file: string, code: string, line?: number): boolean {
  return problems.some((p) => resolve(p.file) === file && p.code === code && (line === undefined || p.line === line));
}

describe('hot reload', () => {
  it('swaps in a valid edit: a new digest, the changed definition visible, the old snapshot untouched', async (t) => {
    const dir = await copyQuickstart(t);
    const holder = await startWatching(t, dir);
    const before = holder.current;
    const syncs = join(dir, 'syncs.yaml');
    const text = await readFile(syncs, 'utf8');
    await writeAtomically(syncs, text.replace('name: CRM customers → ERP accounts', 'name: CRM customers → ERP accounts (nightly)'));

    await until(
      holder,
      () => holder.current.syncs.get('crm-customers-to-erp')?.definition.name === 'CRM customers → ERP accounts (nightly)',
      'the renamed sync',
    );
    assert.notEqual(holder.current.digest, before.digest);
    assert.equal(holder.status.ok, true);
    assert.deepEqual(holder.status.problems, []);
    // Whoever still holds the previous snapshot keeps reading it as it was.
    assert.equal(before.syncs.get('crm-customers-to-erp')?.definition.name, 'CRM customers → ERP accounts');
    assert.deepEqual([...holder.current.systems.keys()], ['crm', 'erp']);
    assert.deepEqual([...holder.current.webhooks.keys()], ['wh_crmCustomerChanged01']);
  });

  it('rejects broken YAML, a schema error and a bad reference whole, keeps the old snapshot, and recovers', async (t) => {
    const dir = await copyQuickstart(t);
    const holder = await startWatching(t, dir);
    const serving = holder.current;
    const syncs = join(dir, 'syncs.yaml');
    const original = await readFile(syncs, 'utf8');
    const rejectedEdit = async (edited: string, code: string, at: { line: number; column?: number }, what: string) => {
      await writeAtomically(syncs, edited);
      await until(holder, () => !holder.status.ok && hasProblem(holder.status.problems, syncs, code, at.line), what);
      const problem = holder.status.problems.find((p) => resolve(p.file) === syncs && p.code === code)!;
      const column = at.column ?? problem.column;
      assert.deepEqual(
        { line: problem.line, column: problem.column },
        { line: at.line, column },
        `${what}: position of ${JSON.stringify(problem)}`,
      );
      assert.ok(
        problem.column >= 1 && problem.column <= edited.split('\n')[at.line - 1]!.length + 1,
        `${what}: the column lies on the line`,
      );
      assert.equal(holder.current, serving, `${what}: the old snapshot keeps serving`);
      assert.equal(holder.current.digest, serving.digest);
      return holder.status.problems;
    };

    // An unclosed quote: the whole file is unreadable, so its sync is gone; none of that may reach
    // the holder. The webhook that starts that sync is not reported as well: the sync exists, it is
    // broken. (Where on the line a YAML error points is the parser's choice; the line is not.)
    const brokenYaml = original.replace('where: "active = 1 AND', 'where: "active = 1 AND"');
    const yamlProblems = await rejectedEdit(
      brokenYaml,
      'yaml-syntax',
      { line: positionOf(original, 'where: "active = 1 AND').line },
      'broken YAML',
    );
    assert.ok(
      !hasProblem(yamlProblems, join(dir, 'webhooks.yaml'), 'unknown-reference'),
      'no "unknown Sync" for a sync whose file is broken',
    );

    const schemaError = original.replace('batchSize: 500', 'batchSize: lots');
    await rejectedEdit(schemaError, 'schema-type', positionOf(schemaError, 'lots'), 'a schema error');
    assert.match(holder.status.problems[0]!.message, /batchSize: must be an integer/);

    const badReference = original.replace('object: Account', 'object: Acount');
    await rejectedEdit(badReference, 'unknown-reference', positionOf(badReference, 'Acount'), 'a bad reference');
    assert.match(holder.status.problems[0]!.message, /has no object 'Acount'; did you mean 'Account'\?/);

    await writeAtomically(syncs, original.replace('batchSize: 500', 'batchSize: 250'));
    await until(holder, () => holder.current.syncs.get('crm-customers-to-erp')?.definition.batchSize === 250, 'the repaired file');
    assert.equal(holder.status.ok, true);
    assert.deepEqual(holder.status.problems, []);
    assert.notEqual(holder.current.digest, serving.digest);
  });

  it('rejects deleting a file that others reference, and swaps in a new file with a new sync', async (t) => {
    const dir = await copyQuickstart(t);
    const holder = await startWatching(t, dir);
    const serving = holder.current;
    const systems = join(dir, 'systems.yaml');
    const systemsText = await readFile(systems, 'utf8');

    await unlink(systems);
    await until(holder, () => !holder.status.ok, 'the deletion to be rejected');
    assert.ok(hasProblem(holder.status.problems, join(dir, 'syncs.yaml'), 'unknown-reference'), JSON.stringify(holder.status.problems));
    assert.match(holder.status.problems.map((p) => p.message).join('\n'), /unknown System 'crm'/);
    assert.equal(holder.current, serving);

    await writeAtomically(systems, systemsText);
    await until(holder, () => holder.status.ok, 'the restored file');
    assert.equal(holder.current.digest, serving.digest, 'the same files give the same digest');

    // A new folder with a new file: directories are watched as they appear.
    await mkdir(join(dir, 'team-b'));
    await writeFile(
      join(dir, 'team-b', 'accounts.yaml'),
      [
        'kind: Sync',
        'id: erp-accounts-to-crm',
        'source: { system: erp, object: Account }',
        'target: { system: crm, object: Customer }',
        `mapping: '{ "name": AccountName, "email": Email }'`,
        '',
      ].join('\n'),
    );
    await until(holder, () => holder.current.syncs.has('erp-accounts-to-crm'), 'the new sync');
    assert.deepEqual([...holder.current.syncs.keys()].sort(), ['crm-customers-to-erp', 'erp-accounts-to-crm']);
    assert.ok(holder.current.files.some((file) => resolve(file) === join(dir, 'team-b', 'accounts.yaml')));
    assert.equal(holder.status.ok, true);
  });

  it('rejects a link to a file or directory outside the directory without reading it, and recovers when it goes', async (t) => {
    const dir = await copyQuickstart(t);
    const outside = await tempDir(t, 'outside');
    await writeFile(
      join(outside, 'elsewhere.yaml'),
      'kind: System\nid: elsewhere\nconnector: sql\nconnection: { password: outside-secret-value }\n',
    );
    await mkdir(join(outside, 'folder'));
    const holder = await startWatching(t, dir);
    const serving = holder.current;

    await symlink(join(outside, 'elsewhere.yaml'), join(dir, 'linked.yaml'));
    await until(
      holder,
      () => !holder.status.ok && hasProblem(holder.status.problems, join(dir, 'linked.yaml'), 'link-outside', 1),
      'the link to be refused',
    );
    assert.equal(holder.current, serving, 'the old snapshot keeps serving');
    assert.match(holder.status.problems[0]!.message, /leads to a file outside the definitions directory/);
    assert.ok(!JSON.stringify(holder.status.problems).includes('outside-secret-value'), 'the target is not read');

    await unlink(join(dir, 'linked.yaml'));
    await until(holder, () => holder.status.ok, 'the removed link');
    await symlink(join(outside, 'folder'), join(dir, 'folder'));
    await until(
      holder,
      () => !holder.status.ok && hasProblem(holder.status.problems, join(dir, 'folder'), 'link-outside', 1),
      'the directory link to be refused',
    );
    assert.equal(holder.current.digest, serving.digest);
  });

  it('edits files while reading the snapshot in a loop and never observes a mixed or empty state', async (t) => {
    const seed = Number(process.env.HOT_RELOAD_SEED ?? Date.now() % 1_000_000);
    const random = seededRandom(seed);
    const dir = await tempDir(t, 'generations');
    const lastGeneration = 60;
    for (const [name, text] of Object.entries(generation(0))) await writeFile(join(dir, name), text);
    const holder = await startWatching(t, dir, minimumDebounceMs);
    // Mostly quick, but now and then longer than the debounce, so that reloads do run between the
    // writer's files and in the middle of its slow writes, i.e. on mixed, empty and torn files.
    const pause = () => sleep(random() < 0.08 ? minimumDebounceMs + 5 + Math.floor(random() * 15) : Math.floor(random() * 4));

    const violations: string[] = [];
    const observed: number[] = [];
    const reported = new WeakSet<Snapshot>();
    const inspect = (snapshot: Snapshot, by: string) => {
      const result = generationOf(snapshot);
      if (typeof result === 'string') {
        if (!reported.has(snapshot)) violations.push(`${by}: ${result}`);
        reported.add(snapshot);
      } else if (observed.at(-1) !== result) {
        if (result < (observed.at(-1) ?? 0)) violations.push(`${by}: generation ${result} after ${observed.at(-1)}`);
        observed.push(result);
      }
    };
    holder.on('swap', (snapshot) => inspect(snapshot, 'swap event'));
    let rejections = 0;
    holder.on('rejected', () => rejections++);
    let reading = true;
    let reads = 0;
    const reader = new Promise<void>((done) => {
      const loop = () => {
        if (!reading) return done();
        reads++;
        inspect(holder.current, 'reader');
        setImmediate(loop);
      };
      loop();
    });

    const defects = ['yaml', 'schema', 'reference'] as const;
    let defective = 0;
    const writer = async () => {
      for (let n = 1; n <= lastGeneration; n++) {
        const defect = n % 9 === 0 ? defects[defective++ % defects.length] : undefined;
        const files = Object.entries(generation(n, defect));
        shuffle(files, random);
        for (const [index, [name, text]] of files.entries()) {
          await writeInOneOfThreeWays(join(dir, name), text, random, pause);
          if (index < files.length - 1) await pause();
        }
        if (defect) {
          // The defective generation must really be seen, and rejected, before it is overwritten.
          const [file, code] = defectProblem[defect];
          await until(
            holder,
            () => !holder.status.ok && hasProblem(holder.status.problems, join(dir, file), code),
            `generation ${n} (${defect}) to be rejected (seed ${seed})`,
          );
        } else if (n % 10 === 0) {
          await until(holder, () => generationOf(holder.current) === n, `generation ${n} (seed ${seed})`);
        } else {
          await pause();
        }
      }
      await until(holder, () => generationOf(holder.current) === lastGeneration && holder.status.ok, `the final generation (seed ${seed})`);
    };
    // What the reader saw is the verdict that matters most, so it is reported even when the writer
    // gave up waiting.
    const written = await writer().then(
      () => undefined,
      (error: unknown) => error,
    );
    reading = false;
    await reader;

    t.diagnostic(`seed ${seed}: ${reads} reads, ${observed.length} generations swapped in, ${rejections} reloads rejected`);
    assert.deepEqual(violations.slice(0, 5), [], `seed ${seed}: ${violations.length} inconsistent snapshots observed`);
    if (written) throw written;
    assert.equal(observed.at(-1), lastGeneration);
    // The start, every tenth generation (waited for) and the last at least.
    assert.ok(observed.length >= 1 + lastGeneration / 10, `seed ${seed}: generations swapped in: ${observed.join(', ')}`);
    assert.ok(rejections >= defective, `seed ${seed}: ${rejections} rejections, ${defective} defective generations`);
    assert.ok(reads > 100, `the reader ran (${reads} reads)`);
  });
});

/**
 * Three files that all depend on each other (a ↔ b ↔ c: the client in a names a sync of b, the
 * syncs of b use the systems of a, a webhook of b starts the flow of c, whose steps and webhook
 * name syncs of b). Every id carries the generation, so any mixture of two generations leaves a
 * reference unresolved. The last document of each file is one that another file refers to, and
 * each file ends in a quoted or bracketed value, so a file read while empty or half written is
 * invalid too. A mixed or partial snapshot can therefore only come from a holder or watcher that
 * exposes something it should not.
 */
function generation(n: number, defect?: 'yaml' | 'schema' | 'reference'): Record<string, string> {
  const g = `g${n}`;
  const name = `"generation ${n}"`;
  const hash = 'a'.repeat(64);
  return {
    'a-systems.yaml': `kind: ApiClient
id: client-${g}
name: ${name}
tokenSha256: "${hash}"
syncs: ["sync-read-${g}"]
scopes: [queue:read${defect === 'schema' ? ', queue:everything' : ''}]
---
kind: System
id: src-${g}
name: ${name}
connector: sql
connection: { client: sqlite3, filename: ":memory:" }
objects: { Customer: { table: customers, key: [id], fields: { id: { type: Integer }, name: { type: String }, email: { type: String }, active: { type: Boolean } } } }
---
kind: System
id: dst-${g}
name: ${name}
connector: sql
connection: { client: sqlite3, filename: ":memory:" }
objects: { Account: { table: accounts, key: [AccountNumber], fields: { AccountNumber: { type: String }, AccountName: { type: String }, Email: { type: String } } } }
`,
    'b-syncs.yaml': `kind: Webhook
id: wh_hotreload_flow_${g}
name: ${name}
action: startSync
flow: "flow-${g}"
---
kind: Sync
id: sync-push-${g}
name: ${name}
source: { system: src-${g}, object: Customer, where: "active = 1" }
target: { system: dst-${g}, object: Account }
precondition: "#email# <> ''"
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
mapping: '{ "AccountNumber": "C-" & $string(id), "AccountName": name, "Email": $lowercase(email) }'
---
kind: Sync
id: sync-read-${g}
name: ${name}
source: { recordStore: true }
target: { system: dst-${g}, object: Account }
mapping: '{ "AccountNumber": id, "AccountName": name }${defect === 'yaml' ? '' : "'"}
`,
    'c-flows.yaml': `kind: Webhook
id: wh_hotreload_push_${g}
name: ${name}
condition: "#event# <> 'customer.deleted'"
requestSchema: { type: object, required: [id, event], properties: { id: { type: integer }, event: { type: string } } }
action: startSync
sync: "sync-${defect === 'reference' ? 'pull' : 'push'}-${g}"
---
kind: Flow
id: flow-${g}
name: ${name}
steps: [{ sync: "sync-read-${g}" }, { sync: "sync-push-${g}" }]
`,
  };
}

const defectProblem = {
  yaml: ['b-syncs.yaml', 'yaml-syntax'],
  schema: ['a-systems.yaml', 'schema-enum'],
  reference: ['c-flows.yaml', 'unknown-reference'],
} as const;

const expectedCounts = { systems: 2, syncs: 2, webhooks: 2, flows: 1, apiClients: 1 } as const;

/** The one generation of every definition in the snapshot, or what is wrong with it. */
function generationOf(snapshot: Snapshot): number | string {
  const generations = new Set<number>();
  for (const [kind, count] of Object.entries(expectedCounts) as Array<[keyof typeof expectedCounts, number]>) {
    const entries = snapshot[kind];
    if (entries.size !== count) return `${entries.size} ${kind} instead of ${count} (digest ${snapshot.digest.slice(0, 12)})`;
    for (const [id, { definition }] of entries) {
      const fromId = /[-_]g(\d+)$/.exec(id)?.[1];
      const fromName = /^generation (\d+)$/.exec(definition.name ?? '')?.[1];
      if (fromId === undefined || fromId !== fromName) return `${kind} '${id}' is named '${definition.name}'`;
      generations.add(Number(fromId));
    }
  }
  return generations.size === 1 ? [...generations][0]! : `generations ${[...generations].join(', ')} in one snapshot`;
}

/**
 * Replaces the file by rename (atomic), by a plain truncating write, or slowly: truncated, half
 * written, then finished — so that a reload may read it empty or cut short.
 */
async function writeInOneOfThreeWays(path: string, text: string, random: () => number, pause: () => Promise<unknown>): Promise<void> {
  const way = random();
  if (way < 1 / 3) return writeAtomically(path, text);
  if (way < 2 / 3) return writeFile(path, text);
  const handle = await open(path, 'w');
  try {
    await pause();
    const half = Math.floor(text.length / 2);
    await handle.write(text.slice(0, half));
    await pause();
    await handle.write(text.slice(half));
  } finally {
    await handle.close();
  }
}

/** mulberry32: a small seeded generator, so that a failing interleaving can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
