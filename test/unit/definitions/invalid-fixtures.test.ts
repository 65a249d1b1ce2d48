/**
 * Every broken definition set under test/fixtures/invalid/<case>/ yields exactly the problems its
 * expected.json lists: same count, code, file, line, column and severity, and a message containing
 * the listed fragment. A case whose problems are all warnings loads (and validates with exit 0).
 * Cases that cannot be committed (a 10 MB file, binary bytes, a symbolic link leaving the
 * directory) are generated into a temporary directory instead.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConnectorSpecs } from '../../../connectors/index.js';
import { loadDefinitions } from '../../../definitions/load-definitions.js';
import { formatProblem, type Problem } from '../../../definitions/problem.js';

/** The registered connectors, which the definitions are checked against. */
const connectors = await loadConnectorSpecs();

interface ExpectedProblem {
  code: string;
  /** Relative to the case directory. */
  file: string;
  line: number;
  column: number;
  /** A distinctive fragment of the message. */
  message: string;
  /** Absent: an error. */
  severity?: 'warning';
}

const fixtures = fileURLToPath(new URL('../../fixtures/invalid/', import.meta.url));

/** The only environment the definitions see: nothing leaks in from the machine running the tests. */
const env = Object.freeze({ HOME_REGION: 'eu' });

/** The problems of `caseDir`, which loads only when they are all warnings. */
async function problemsOf(caseDir: string, { loads = false } = {}): Promise<Problem[]> {
  const result = await loadDefinitions([caseDir], { connectors, env });
  assert.equal(
    result.ok,
    loads,
    loads ? `${caseDir} was refused: ${result.problems.map(formatProblem).join('; ')}` : `${caseDir} loaded without problems`,
  );
  return result.problems;
}

/**
 * Compares as one list, so that a failure shows every difference at once: each actual message is
 * replaced by the expected fragment when it contains it, and shown in full when it does not.
 */
function assertProblems(caseDir: string, problems: readonly Problem[], expected: readonly ExpectedProblem[]): void {
  const actual = problems.map((problem, index) => {
    const fragment = expected[index]?.message;
    return {
      code: problem.code,
      file: relative(caseDir, resolve(problem.file)).split('\\').join('/'),
      line: problem.line,
      column: problem.column,
      message: fragment !== undefined && problem.message.includes(fragment) ? fragment : problem.message,
      ...(problem.severity === 'warning' ? { severity: problem.severity } : {}),
    };
  });
  assert.deepEqual(actual, expected);
  for (const problem of problems) {
    assert.ok(!problem.message.includes('    at '), `stack trace in message: ${problem.message}`);
    const line = formatProblem(problem);
    assert.ok(!/[\r\n]/.test(line), `problem is not one line: ${JSON.stringify(line)}`);
    assert.ok(problem.line >= 1 && problem.column >= 1, `position is 1-based: ${line}`);
  }
}

const cases = readdirSync(fixtures, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('invalid definition fixtures', () => {
  test('there are at least 35 cases, each with an expected.json', () => {
    assert.ok(cases.length >= 35, `only ${cases.length} cases`);
    for (const name of cases) assert.ok(readdirSync(join(fixtures, name)).includes('expected.json'), `${name} has no expected.json`);
  });

  for (const name of cases) {
    test(name, async () => {
      const caseDir = join(fixtures, name);
      const expected = JSON.parse(readFileSync(join(caseDir, 'expected.json'), 'utf8')) as ExpectedProblem[];
      const loads = expected.every((problem) => problem.severity === 'warning');
      assertProblems(caseDir, await problemsOf(caseDir, { loads }), expected);
    });
  }
});

/** `text` as bytes: U+FFFD as UTF-8 (a character the file may hold), every other character as one Latin-1 byte. */
function latin1(text: string): Buffer {
  return Buffer.concat([...text].map((char) => (char === '\uFFFD' ? Buffer.from(char, 'utf8') : Buffer.from(char, 'latin1'))));
}

describe('generated invalid definitions', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'syncline-invalid-'));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  /** A fresh case directory holding `files`. */
  const caseDir = (name: string, files: Record<string, string | Buffer>): string => {
    const dir = join(scratch, name);
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), content);
    }
    return dir;
  };

  /** `count` flows, each running the next, the last a sync: flow-0 → flow-1 → … → sync. */
  const flowChain = (count: number): string =>
    [
      'kind: Sync\nid: orders-from-store\nsource: { recordStore: true }\ntarget: { system: erp, object: Account }\nmapping: \'{ "AccountName": name }\'\n',
      ...Array.from(
        { length: count },
        (_, index) =>
          `kind: Flow\nid: flow-${index}\nsteps:\n  - ${index === count - 1 ? 'sync: orders-from-store' : `flow: flow-${index + 1}`}\n`,
      ),
    ].join('---\n');
  const systems = readFileSync(join(fixtures, 'flow-cycle', 'systems.yaml'), 'utf8');

  test('flows nesting 32 levels load; 33 or 3,000 levels are refused once, at the top, not with a stack overflow', async () => {
    const fits = caseDir('flows-32', { 'systems.yaml': systems, 'flows.yaml': flowChain(32) });
    assert.equal((await loadDefinitions([fits], { connectors, env })).ok, true);
    for (const count of [33, 3000]) {
      const dir = caseDir(`flows-${count}`, { 'systems.yaml': systems, 'flows.yaml': flowChain(count) });
      assertProblems(dir, await problemsOf(dir), [
        {
          code: 'flow-depth',
          file: 'flows.yaml',
          line: 10,
          column: 3,
          message: `steps: flows nest ${count} levels deep here (flow-0 → flow-1 → flow-2 → … → flow-${count - 2} → flow-${count - 1}); flows nest at most 32 levels`,
        },
      ]);
    }
  });

  test('a chain of 3,000 flows into a cycle is reported as the cycle', async () => {
    const chain = flowChain(3000).replace('sync: orders-from-store\n', 'flow: flow-2998\n');
    const dir = caseDir('flows-into-cycle', { 'systems.yaml': systems, 'flows.yaml': chain });
    const problems = await problemsOf(dir);
    assert.deepEqual(
      problems.map((problem) => [problem.code, problem.message.replace(/^Flow\/\S+: /, '')]),
      [['flow-cycle', 'steps[0].flow: flows call each other in a cycle: flow-2998 → flow-2999 → flow-2998']],
    );
  });

  test('a 10 MB file is refused before it is parsed', async () => {
    const line = '# padding that makes this file far larger than any definition file should be\n';
    const text = `kind: System\nid: huge\n${line.repeat(Math.ceil((10 * 1024 * 1024) / line.length))}`;
    const dir = caseDir('huge-file', { 'huge.yaml': text });
    assertProblems(dir, await problemsOf(dir), [
      {
        code: 'file-too-large',
        file: 'huge.yaml',
        line: 1,
        column: 1,
        message: 'file is 10.0 MiB; definition files may be at most 4 MiB — split it',
      },
    ]);
  });

  // Decoded as UTF-8, the ü would become U+FFFD, and the mapping would write that to every record.
  test('a file saved as Latin-1 is refused at its first byte that is not UTF-8', async () => {
    const text = 'kind: System\nid: crm\nname: "CRM \uFFFD kept"\ndescription: \'Kunden \u00fc\'\n';
    const dir = caseDir('latin-1', { 'systems.yaml': latin1(text) });
    assertProblems(dir, await problemsOf(dir), [
      { code: 'not-utf8', file: 'systems.yaml', line: 4, column: 22, message: 'the file is not UTF-8 here (saved as Latin-1' },
    ]);
  });

  test('a binary file is not read as YAML', async () => {
    const dir = caseDir('binary-file', {
      'logo.yaml': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]),
    });
    assertProblems(dir, await problemsOf(dir), [
      { code: 'not-yaml', file: 'logo.yaml', line: 1, column: 1, message: 'file contains NUL bytes: it is not a YAML text file' },
    ]);
  });

  test('${file:..} through a symbolic link that leaves the directory', async () => {
    writeFileSync(join(scratch, 'outside-secret.txt'), 'secret\n');
    const dir = caseDir('symlink-outside', {
      'systems.yaml': [
        'kind: System',
        'id: crm',
        'connector: sql',
        'connection:',
        '  client: pg',
        '  url: postgres://crm@db.internal/crm',
        '  password: ${file:secrets/password.txt}',
        '',
      ].join('\n'),
    });
    mkdirSync(join(dir, 'secrets'));
    symlinkSync(join(scratch, 'outside-secret.txt'), join(dir, 'secrets', 'password.txt'));
    assertProblems(dir, await problemsOf(dir), [
      {
        code: 'file-outside',
        file: 'systems.yaml',
        line: 7,
        column: 13,
        message: "file 'secrets/password.txt' is outside the definitions directory",
      },
    ]);
  });

  test('a definition file or directory linked from outside the directory is refused, its content unread', async () => {
    mkdirSync(join(scratch, 'elsewhere', 'team'), { recursive: true });
    writeFileSync(join(scratch, 'elsewhere', 'passwd.yaml'), 'root:x:0:0:root-entry-kept-outside\n');
    writeFileSync(join(scratch, 'elsewhere', 'team', 'more.yaml'), 'kind: System\nid: elsewhere-team\n');
    const dir = caseDir('symlinked-definitions', { 'inside/shared.yaml': 'kind: Flow\nid: shared\nsteps: [{ flow: shared-too }]\n' });
    symlinkSync(join(scratch, 'elsewhere', 'passwd.yaml'), join(dir, 'systems.yaml'));
    symlinkSync(join(scratch, 'elsewhere', 'team'), join(dir, 'team'));
    symlinkSync(join(scratch, 'elsewhere', 'gone.yaml'), join(dir, 'dangling.yaml'));
    // Links that stay inside: a file is read through its link, a directory is found where it is.
    symlinkSync(join(dir, 'inside'), join(dir, 'inside-again'));
    writeFileSync(join(dir, 'inside', 'flow.txt'), 'kind: Flow\nid: shared-too\nsteps: [{ flow: shared }]\n');
    symlinkSync(join(dir, 'inside', 'flow.txt'), join(dir, 'flow.yaml'));
    const problems = await problemsOf(dir);
    assertProblems(dir, problems, [
      { code: 'file-unreadable', file: 'dangling.yaml', line: 1, column: 1, message: 'this symbolic link leads to nothing' },
      // Read through the link, and shown under the link's name.
      {
        code: 'flow-cycle',
        file: 'flow.yaml',
        line: 3,
        column: 17,
        message: 'flows call each other in a cycle: shared → shared-too → shared',
      },
      {
        code: 'link-outside',
        file: 'systems.yaml',
        line: 1,
        column: 1,
        message: 'this symbolic link leads to a file outside the definitions directory',
      },
      {
        code: 'link-outside',
        file: 'team',
        line: 1,
        column: 1,
        message: 'this symbolic link leads to a directory outside the definitions directory',
      },
    ]);
    assert.ok(!JSON.stringify(problems).includes('root-entry'), 'nothing of the target is shown');
  });

  test('nesting deep enough to exhaust the parser is one problem, not one per bracket', async () => {
    const dir = caseDir('deep-nesting', { 'deep.yaml': `kind: System\nid: crm\nobjects: ${'['.repeat(10_000)}\n` });
    const problems = await problemsOf(dir);
    // Where the stack runs out depends on the machine; the line and the single problem do not.
    assert.equal(problems.length, 1, problems.map(formatProblem).join('\n'));
    assert.equal(problems[0]!.code, 'yaml-syntax');
    assert.equal(problems[0]!.line, 3);
    assert.match(problems[0]!.message, /nests too deeply/);
  });
});
