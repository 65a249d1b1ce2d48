/**
 * Paths stay inside their roots: `syncline validate` refuses '..' and absolute paths at the
 * setting, with file, line and column; at run time a symbolic link out of the directory (named by
 * the path or matched by a glob), a directory that is a link out of the roots and a directory
 * outside SYNCLINE_FILE_ROOTS are refused as unavailable — naming the System and the setting —
 * before anything is read, created or moved.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { runCli } from '../../../support/cli-process.js';
import { fileWorld, readAll, type FileWorld } from './file-system-fixture.js';

const fields = { id: { type: 'Integer' }, name: { type: 'String' } };

async function unavailable(action: () => Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await action();
  } catch (error) {
    assert.ok(error instanceof ConnectorError, String(error));
    assert.equal(error.code, 'unavailable', error.message);
    assert.match(error.message, message);
    assert.doesNotMatch(error.message, /classified/, 'no content of the file');
    assert.ok(!error.message.includes(tmpdir()) && !JSON.stringify(error.details).includes(tmpdir()), `no server path: ${error.message}`);
    return;
  }
  assert.fail('expected the operation to be refused');
}

describe('syncline validate', () => {
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'syncline-file-validate-'));
    writeFileSync(
      join(directory, 'systems.yaml'),
      [
        'kind: System',
        'id: files',
        'connector: file',
        'connection: { directory: data }',
        'objects:',
        '  Out:',
        '    path: ../outside.csv',
        '    key: [id]',
        '    fields: { id: { type: Integer } }',
        '  Absolute:',
        "    path: '/etc/passwd.csv'",
        '    key: [id]',
        '    fields: { id: { type: Integer } }',
        '    archive: { moveTo: ../done }',
        '',
      ].join('\n'),
    );
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  test("refuses '..' and absolute paths at the setting, with file, line and column", async () => {
    const run = await runCli(['validate', directory]);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.deepEqual(
      lines.map((line) => line.slice(line.indexOf('systems.yaml'))),
      [
        "systems.yaml:7:11: System/files: objects.Out.path '../outside.csv' has a '..' segment; give a file or glob relative to the connection's directory (move the directory instead to reach files elsewhere)",
        "systems.yaml:11:11: System/files: objects.Absolute.path '/etc/passwd.csv' is absolute; give a file or glob relative to the connection's directory (move the directory instead to reach files elsewhere)",
        "systems.yaml:14:24: System/files: objects.Absolute.archive.moveTo '../done' has a '..' segment; give a directory inside the connection's directory, such as done/",
      ],
    );
  });
});

describe('links and roots at run time', () => {
  let world: FileWorld;
  let outside: string;
  before(() => {
    world = fileWorld();
    outside = mkdtempSync(join(tmpdir(), 'syncline-outside-'));
    writeFileSync(join(outside, 'secret.csv'), 'id,name\n1,classified\n');
    world.put('inbox/a.csv', 'id,name\n1,Ada\n');
    world.put('inside.csv', 'id,name\n2,Bob\n');
    symlinkSync(join(outside, 'secret.csv'), join(world.data, 'inbox', 'b.csv'));
    symlinkSync(join(outside, 'secret.csv'), join(world.data, 'linked.csv'));
    symlinkSync(join(world.data, 'inside.csv'), join(world.data, 'alias.csv'));
    symlinkSync(outside, join(world.data, 'elsewhere'));
    symlinkSync(outside, join(world.base, 'linked-data'));
  });
  after(async () => {
    await world.close();
    rmSync(outside, { recursive: true, force: true });
  });

  test('a link out of the directory is refused, named by the path or matched by a glob; a link inside is followed', async () => {
    const connection = world.connect(
      world.system({
        Linked: { path: 'linked.csv', key: ['id'], fields },
        Inbox: { path: 'inbox/*.csv', key: ['id'], fields },
        Alias: { path: 'alias.csv', key: ['id'], fields },
      }),
    );
    await unavailable(
      () => readAll(connection, 'Linked'),
      /object Linked, file linked\.csv: it is a symbolic link to outside the directory; refused/,
    );
    await unavailable(() => readAll(connection, 'Inbox'), /file inbox\/b\.csv: it is a symbolic link to outside the directory/);
    await unavailable(() => connection.write('Linked', { values: { id: 3, name: 'x' } }), /symbolic link to outside/);
    assert.deepEqual(await readAll(connection, 'Alias'), [{ id: 2, name: 'Bob' }]);
  });

  test("a definition built without validation still cannot reach out with '..'", async () => {
    const connection = world.connect(
      world.system({ Up: { path: '../data/inside.csv', key: ['id'], fields }, Glob: { path: '../*/inside.csv', key: ['id'], fields } }),
    );
    await unavailable(() => readAll(connection, 'Up'), /object Up: its path has a '\.\.' segment; refused/);
    await unavailable(() => readAll(connection, 'Glob'), /object Glob: its path has a '\.\.' segment; refused/);
    await unavailable(() => connection.write('Up', { values: { id: 3, name: 'x' } }), /object Up: its path has a '\.\.' segment; refused/);
  });

  test('a folder of the path that is a link out of the directory is refused, for reads and writes', async () => {
    const connection = world.connect(world.system({ Away: { path: 'elsewhere/secret.csv', key: ['id'], fields } }));
    await unavailable(() => readAll(connection, 'Away'), /file elsewhere\/secret\.csv: it is a symbolic link to outside the directory/);
    const writer = world.connect(world.system({ New: { path: 'elsewhere/new.csv', key: ['id'], fields } }));
    await unavailable(() => writer.write('New', { values: { id: 1, name: 'x' } }), /elsewhere.*symbolic link to outside the directory/);
    assert.equal(existsSync(join(outside, 'new.csv')), false, 'nothing was created outside');
  });

  test('a directory outside the roots is refused for every operation, naming SYNCLINE_FILE_ROOTS', async () => {
    const linked = world.connect(world.system({ S: { path: 'secret.csv', key: ['id'], fields } }, { directory: 'linked-data' }));
    const absolute = world.connect(world.system({ S: { path: 'secret.csv', key: ['id'], fields } }, { directory: outside }));
    for (const connection of [linked, absolute]) {
      const message =
        /system 'files': its connection\.directory is outside the directories files may be read and written in; add it to SYNCLINE_FILE_ROOTS, or change connection\.directory/;
      await unavailable(() => connection.check(), message);
      await unavailable(() => readAll(connection, 'S'), message);
      await unavailable(() => connection.count('S'), message);
      await unavailable(() => connection.write('S', { values: { id: 2, name: 'x' } }), message);
      await unavailable(() => connection.discover(), message);
    }
    assert.deepEqual(
      await readAll(
        world.connect(world.system({ S: { path: 'secret.csv', key: ['id'], fields } }, { directory: outside }), { fileRoots: [outside] }),
        'S',
      ),
      [{ id: 1, name: 'classified' }],
    );
  });

  test('syncline discover takes the roots from SYNCLINE_FILE_ROOTS', async () => {
    const definitions = join(world.base, 'definitions');
    mkdirSync(definitions, { recursive: true });
    writeFileSync(
      join(definitions, 'systems.yaml'),
      `kind: System\nid: away\nconnector: file\nconnection: { directory: ${JSON.stringify(outside)} }\nobjects: {}\n`,
    );
    const refusedRun = await runCli(['discover', 'away', '--definitions', definitions]);
    assert.equal(refusedRun.code, 1, refusedRun.stderr);
    assert.match(refusedRun.stderr, /outside the directories files may be read and written in.*SYNCLINE_FILE_ROOTS/);
    const allowed = await runCli(['discover', 'away', '--definitions', definitions], {
      env: { SYNCLINE_FILE_ROOTS: `${world.base}:${outside}` },
    });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stdout, /path: secret\.csv/);
  });
});
