/**
 * What `syncline validate` refuses of a file System before any file is touched: paths that leave
 * the directory, formats nobody says, contradicting CSV options, columns that miss fields, an
 * archive outside the directory, and named queries. Each problem names the setting to change.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkFileSystem, pathProblem } from '../../../../connectors/file/check-system.js';
import type { SystemDefinition } from '../../../../definitions/types.js';

function system(objects: Record<string, Record<string, unknown>>, queries: Record<string, unknown> = {}): SystemDefinition {
  const fields = { id: { type: 'Integer' }, name: { type: 'String' } };
  return {
    kind: 'System',
    id: 'files',
    connector: 'file',
    connection: { directory: 'data' },
    queries,
    objects: Object.fromEntries(Object.entries(objects).map(([name, options]) => [name, { key: ['id'], fields, ...options }])),
  } as unknown as SystemDefinition;
}

const problems = (definition: SystemDefinition) =>
  checkFileSystem(definition).map((problem) => `${problem.path.join('.')} ${problem.code}${problem.warning ? ' (warning)' : ''}`);

test("'..' segments and absolute paths are refused; plain relative paths and globs pass", () => {
  for (const path of ['../x.csv', 'a/../../x.csv', '/etc/passwd', '\\\\server\\share.csv', 'C:/data.csv', 'a\\..\\b.csv']) {
    assert.notEqual(pathProblem(path), undefined, path);
  }
  for (const path of ['x.csv', './x.csv', 'inbox/orders-*.csv', '**/*.ndjson', 'a..b.csv'])
    assert.equal(pathProblem(path), undefined, path);
});

test('each problem is reported at the setting to change', () => {
  assert.deepEqual(
    problems(
      system(
        {
          Out: { path: '../secrets.csv' },
          Unknown: { path: 'inbox/*' },
          NoColumns: { path: 'a.csv', header: false },
          Both: { path: 'b.csv', header: true, columns: ['id', 'name'] },
          Missing: { path: 'c.csv', header: false, columns: ['id'] },
          Json: { path: 'd.json', delimiter: ';' },
          Same: { path: 'e.csv', delimiter: '"' },
          Names: { path: 'f.csv', columnNames: { nope: 'x', name: 'id' } },
          Archive: { path: 'in/*.csv', archive: { moveTo: '../done' } },
          Itself: { path: 'in/*.csv', archive: { moveTo: './' } },
        },
        { open: { statement: 'x', columns: [] } },
      ),
    ),
    [
      'queries.open queries-unsupported',
      'objects.Out.path path-outside-directory',
      'objects.Unknown.path format-unknown',
      'objects.NoColumns.header columns-missing',
      'objects.Both.columns columns-with-header',
      'objects.Missing.columns column-missing',
      'objects.Json.delimiter csv-option (warning)',
      'objects.Same.delimiter delimiter-is-quote',
      'objects.Names.columnNames.name column-name-taken',
      'objects.Names.columnNames.nope unknown-field',
      'objects.Archive.archive.moveTo path-outside-directory',
      'objects.Itself.archive.moveTo path-outside-directory',
    ],
  );
});

test('an archive on a read-only object or System is refused at the archive setting', () => {
  assert.deepEqual(problems(system({ Held: { path: 'in/*.csv', readOnly: true, archive: { moveTo: 'done' } } })), [
    'objects.Held.archive archive-read-only',
  ]);
  const readOnly = { ...system({ A: { path: 'in/*.csv', archive: { moveTo: 'done' } }, B: { path: 'b.csv' } }), readOnly: true };
  assert.deepEqual(problems(readOnly), ['objects.A.archive archive-read-only']);
  const [problem] = checkFileSystem(readOnly);
  assert.match(problem!.message, /objects\.A\.archive moves files after a run, but the System is readOnly; remove archive, or readOnly/);
  assert.deepEqual(problems(system({ Glob: { path: 'in/*.csv', archive: { moveTo: 'done' } } })), []);
});

test('a sound System has no problem', () => {
  assert.deepEqual(
    problems(
      system({
        A: { path: 'a.csv' },
        B: { path: 'inbox/*.txt', format: 'ndjson', archive: { moveTo: 'done/' } },
        C: { path: 'c.csv', header: false, columns: ['id', 'name', 'extra'] },
        D: { path: 'd.tsv', columnNames: { name: 'Full Name' } },
      }),
    ),
    [],
  );
});
