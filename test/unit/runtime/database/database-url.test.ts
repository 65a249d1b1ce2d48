/** `--db` / `SYNCLINE_DB` / `SYNCLINE_DB_FILE` parsing: every accepted form, the default, and the errors. No database needed. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { databaseSetting, DatabaseUrlError, parseDatabaseUrl } from '../../../../runtime/database/database-url.js';

const base = '/srv/syncline';

test('PostgreSQL URLs, both schemes; the password is hidden in display', () => {
  assert.deepEqual(parseDatabaseUrl('postgres://app:s3cret@db.example:5432/syncline', { baseDirectory: base }), {
    dialect: 'postgres',
    url: 'postgres://app:s3cret@db.example:5432/syncline',
    display: 'postgres://app:***@db.example:5432/syncline',
  });
  const location = parseDatabaseUrl('postgresql://db.example/syncline');
  assert.equal(location.dialect, 'postgres');
  assert.equal(location.display, 'postgresql://db.example/syncline');
});

test("a password holding '/' or '@' is hidden whole, in the display and in the error of a URL that does not parse", () => {
  assert.equal(parseDatabaseUrl('mysql://root:a@b@127.0.0.1:3306/x').display, 'mysql://root:***@127.0.0.1:3306/x');
  assert.throws(
    () => parseDatabaseUrl('postgres://postgres:my/Secret9@127.0.0.1:5432/x'),
    (error: Error) => !/Secret9|my\//.test(error.message) && /postgres:\*\*\*@127\.0\.0\.1/.test(error.message),
  );
});

test('MariaDB/MySQL URLs: mariadb:// is handed to the driver as mysql://', () => {
  assert.deepEqual(parseDatabaseUrl('mysql://root:pw@127.0.0.1:3306/syncline'), {
    dialect: 'mysql',
    url: 'mysql://root:pw@127.0.0.1:3306/syncline',
    display: 'mysql://root:***@127.0.0.1:3306/syncline',
  });
  const mariadb = parseDatabaseUrl('MariaDB://root@db:3306/syncline');
  assert.equal(mariadb.dialect, 'mysql');
  assert.ok('url' in mariadb && mariadb.url.startsWith('mysql://root@db:3306/syncline'));
});

test('sqlite: relative and absolute paths, and bare paths', () => {
  assert.deepEqual(parseDatabaseUrl('sqlite:data/queue.db', { baseDirectory: base }), {
    dialect: 'sqlite',
    filename: '/srv/syncline/data/queue.db',
    createFolder: false,
    display: 'sqlite:data/queue.db',
  });
  assert.deepEqual(parseDatabaseUrl('sqlite:/var/lib/syncline/queue.db', { baseDirectory: base }), {
    dialect: 'sqlite',
    filename: '/var/lib/syncline/queue.db',
    createFolder: false,
    display: 'sqlite:/var/lib/syncline/queue.db',
  });
  const bare = parseDatabaseUrl('state/syncline.sqlite', { baseDirectory: base });
  assert.ok(bare.dialect === 'sqlite');
  assert.equal(bare.filename, '/srv/syncline/state/syncline.sqlite');
  const absolute = parseDatabaseUrl('/tmp/x.db', { baseDirectory: base });
  assert.ok(absolute.dialect === 'sqlite' && absolute.filename === '/tmp/x.db');
  const drive = parseDatabaseUrl('C:\\data\\x.db', { baseDirectory: base });
  assert.equal(drive.dialect, 'sqlite', 'a drive letter is a path, not a scheme');
});

test('flag first, then SYNCLINE_DB, then the default file (whose folder is created)', () => {
  const env = { SYNCLINE_DB: 'postgres://db/syncline' };
  assert.equal(databaseSetting('sqlite:flag.db', env, base).display, 'sqlite:flag.db');
  assert.equal(databaseSetting(undefined, env, base).dialect, 'postgres');
  assert.deepEqual(databaseSetting(undefined, {}, base), {
    dialect: 'sqlite',
    filename: '/srv/syncline/.syncline/syncline.db',
    createFolder: true,
    display: '.syncline/syncline.db',
  });
  assert.equal(
    databaseSetting(undefined, { SYNCLINE_DB: '  ' }, base).display,
    '.syncline/syncline.db',
    'an empty variable counts as unset',
  );
});

test('clear errors for anything else, naming where the value came from', () => {
  const cases: Array<[string, RegExp]> = [
    ['', /^--db is empty; give one of postgres:\/\//],
    ['mongodb://db/syncline', /^--db: 'mongodb:' is not a supported database; give one of/],
    ['sqlserver://db', /'sqlserver:' is not a supported database/],
    ['sqlite://data/x.db', /is ambiguous; write sqlite:relative\/file.db or sqlite:\/absolute\/file.db/],
    ['sqlite:', /names no SQLite file/],
    ['sqlite:data/', /names no SQLite file/],
    ['sqlite::memory:', /is not a file; the runtime database must be a file/],
    ['postgres://', /names no host/],
    ['postgres://user:pw@[bad', /is not a valid URL/],
    ['mysql://root:pw@db:3306', /names no database; add it as the path/],
    ['mysql://root:pw@db:3306/', /names no database/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseDatabaseUrl(text, { source: '--db' }),
      (error: Error) => {
        assert.ok(error instanceof DatabaseUrlError, text);
        assert.match(error.message, message, text);
        assert.doesNotMatch(error.message, /pw@/, 'passwords never appear in errors');
        return true;
      },
    );
  }
  assert.throws(() => databaseSetting('redis://x', {}), /--db: 'redis:' is not a supported database/);
  assert.throws(() => databaseSetting(undefined, { SYNCLINE_DB: 'redis://x' }), /SYNCLINE_DB: 'redis:' is not a supported database/);
});

test('SYNCLINE_DB_FILE names a file holding the URL, as a mounted secret does; both at once, or an unreadable file, are refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'syncline-db-file-'));
  try {
    const secret = join(dir, 'db-url');
    writeFileSync(secret, 'postgres://syncline:s3cret@db.internal:5432/syncline\n');
    const location = databaseSetting(undefined, { SYNCLINE_DB_FILE: secret });
    assert.equal(location.dialect, 'postgres');
    assert.equal(location.display, 'postgres://syncline:***@db.internal:5432/syncline');
    assert.throws(
      () => databaseSetting(undefined, { SYNCLINE_DB: 'postgres://a/b', SYNCLINE_DB_FILE: secret }),
      /SYNCLINE_DB and SYNCLINE_DB_FILE are both set; set one of them/,
    );
    assert.throws(
      () => databaseSetting(undefined, { SYNCLINE_DB_FILE: join(dir, 'missing') }),
      /SYNCLINE_DB_FILE: cannot read '.*missing' \(ENOENT\)/,
    );
    writeFileSync(secret, 'redis://nope\n');
    assert.throws(
      () => databaseSetting(undefined, { SYNCLINE_DB_FILE: secret }),
      /SYNCLINE_DB_FILE \(.*db-url\): 'redis:' is not a supported database/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
