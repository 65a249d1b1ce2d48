/**
 * Opening and migrating the runtime database on every engine: sessions set up as documented,
 * migrations from an empty database (two processes racing), a re-run that does nothing, and the
 * schema the queue relies on. Plus opening failures, which need no server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseDatabaseUrl } from '../../../../runtime/database/database-url.js';
import { migrate, migrationStatus, migrationTable, newerMigrations, newerMigrationsWarning } from '../../../../runtime/database/migrate.js';
import type { Migration } from '../../../../runtime/database/migrations/migration.js';
import { migrations } from '../../../../runtime/database/migrations/index.js';
import { DatabaseOpenError, openDatabase } from '../../../../runtime/database/open-database.js';
import { toDatabaseTime } from '../../../../runtime/database/timestamps.js';
import { describeEachDatabase } from '../../../support/databases.js';
import { openRuntimeDatabase } from '../../../support/runtime-databases.js';

const allMigrations = [
  '001-queue-items',
  '002-record-store',
  '003-schedules',
  '004-webhook-idempotency',
  '005-webhook-log',
  '006-queue-concurrency',
  '007-write-probe',
  '008-daemons',
  '009-request-ids',
  '010-queue-listing',
  '011-sync-cursors',
  '012-queue-claim-function',
  '013-queue-lookups',
  '014-cursor-sources',
  '015-claim-head',
  '016-claim-past-full-keys',
];

await describeEachDatabase('runtime database migrations', (database) => {
  test('sessions are set up as documented', async () => {
    const db = await openRuntimeDatabase(database());
    try {
      const knex = db.knex;
      if (db.dialect === 'sqlite') {
        const [journal] = (await knex.raw('PRAGMA journal_mode')) as Array<{ journal_mode: string }>;
        const [keys] = (await knex.raw('PRAGMA foreign_keys')) as Array<{ foreign_keys: number }>;
        const [busy] = (await knex.raw('PRAGMA busy_timeout')) as Array<{ timeout: number }>;
        assert.equal(journal?.journal_mode, 'wal');
        assert.equal(keys?.foreign_keys, 1);
        assert.equal(busy?.timeout, 5000);
      } else if (db.dialect === 'postgres') {
        const result = (await knex.raw('SHOW TimeZone')) as { rows: Array<{ TimeZone: string }> };
        assert.equal(result.rows[0]?.TimeZone, 'UTC');
      } else {
        const [rows] = (await knex.raw('SELECT @@session.time_zone AS zone')) as [Array<{ zone: string }>];
        assert.equal(rows[0]?.zone, '+00:00');
      }
    } finally {
      await db.close();
    }
  });

  test('migrates an empty database once, even when two processes start together', async () => {
    const [first, second] = await Promise.all([openRuntimeDatabase(database()), openRuntimeDatabase(database())]);
    try {
      const applied = await Promise.all([migrate(first!), migrate(second!)]);
      assert.deepEqual(applied.flat().sort(), allMigrations, 'each migration applied by exactly one of them');
      assert.deepEqual(await migrate(first!), [], 'a re-run does nothing');
      assert.deepEqual(await migrationStatus(second!), { applied: allMigrations, pending: [] });
      const recorded = (await database().admin(migrationTable).select('name').orderBy('id')) as Array<{ name: string }>;
      assert.deepEqual(
        recorded.map((row) => row.name),
        allMigrations,
      );
    } finally {
      await Promise.all([first!.close(), second!.close()]);
    }
  });

  test('a migration lock left held is named while the wait goes on, then in the error, with what to do', async () => {
    const db = await openRuntimeDatabase(database());
    const admin = database().admin;
    try {
      await migrate(db);
      await admin(`${migrationTable}_lock`).update({ is_locked: 1 });
      const notices: string[] = [];
      const started = Date.now();
      await assert.rejects(
        migrate(db, { lockWaitMs: 1500, lockNoticeMs: 300, onLockWait: (notice) => notices.push(`${Date.now() - started}ms ${notice}`) }),
        /held the migration lock for too long\. If none is migrating, a migration was interrupted: set is_locked = 0 in syncline_migrations_lock/,
      );
      assert.equal(notices.length, 1, 'one notice for the whole wait');
      assert.match(
        notices[0]!,
        /waiting for the migration lock of the runtime database .*another process holds it.*giving up in 1s\. If none is migrating/,
      );
      assert.ok(Number.parseInt(notices[0]!, 10) < 1200, `the notice came while waiting, not at the end: ${notices[0]}`);
      await admin(`${migrationTable}_lock`).update({ is_locked: 0 });
      assert.deepEqual(await migrate(db, { onLockWait: (notice) => notices.push(notice) }), []);
      assert.equal(notices.length, 1, 'no notice once the lock is free');
    } finally {
      await admin(`${migrationTable}_lock`).update({ is_locked: 0 });
      await db.close();
    }
  });

  test('a database a newer version upgraded is run on, its unknown migrations named', async () => {
    const db = await openRuntimeDatabase(database());
    const admin = database().admin;
    try {
      await migrate(db);
      await admin(migrationTable).insert({
        name: '099-from-a-newer-version',
        batch: 99,
        migration_time: toDatabaseTime(db.dialect, new Date()),
      });
      // Knex's own check called this "a corrupt migration directory", and no replica of the
      // previous version could start during a rollout.
      assert.deepEqual(await migrate(db), []);
      assert.deepEqual(await newerMigrations(db), ['099-from-a-newer-version']);
      assert.match(
        newerMigrationsWarning('db', ['099-from-a-newer-version']) ?? '',
        /was upgraded by a newer Syncline \(099-from-a-newer-version\); this version runs on it/,
      );
    } finally {
      await admin(migrationTable).where({ name: '099-from-a-newer-version' }).delete();
      await db.close();
    }
  });

  test('the tables have the columns the queue and the record store use', async () => {
    const admin = database().admin;
    const columns = async (table: string) => Object.keys(await admin(table).columnInfo()).sort();
    assert.deepEqual(await columns('queue_items'), [
      'action_params',
      'attempts',
      'concurrency_key',
      'concurrency_limit',
      'created_at',
      'errors',
      'finished_at',
      'id',
      'lease_until',
      'locked_by',
      'max_attempts',
      'process_id',
      'request_id',
      'retry_of',
      'run_after',
      'slot_key',
      'source_id',
      'start_type',
      'started_at',
      'statistics',
      'status',
      'where_clause',
    ]);
    assert.deepEqual(await columns('queue_locks'), ['name']);
    assert.deepEqual(await columns('daemons'), [
      'command',
      'concurrency',
      'expires_at',
      'heartbeat_at',
      'host',
      'id',
      'pid',
      'running',
      'started_at',
      'version',
    ]);
    assert.deepEqual(await columns('record_store'), ['created_at', 'guid', 'record', 'sync_id']);
    assert.deepEqual(await columns('schedules'), ['last_item_id', 'last_slot_at', 'process_id', 'updated_at']);
    assert.deepEqual(await columns('sync_cursors'), ['field', 'kind', 'mark', 'source', 'sync_id', 'updated_at']);
    assert.deepEqual(await columns('webhook_log'), [
      'at',
      'duration_ms',
      'id',
      'method',
      'origin',
      'payload',
      'payload_truncated',
      'pinned',
      'queue_item_id',
      'replay_of',
      'request_id',
      'response',
      'status',
      'ticker',
      'webhook_id',
    ]);
  });

  test('opened read-only, it is read and refuses writes', async () => {
    const writable = await openRuntimeDatabase(database());
    await migrate(writable);
    await writable.close();
    const db = await openRuntimeDatabase(database(), { readOnly: true });
    try {
      assert.deepEqual(await db.knex('record_store').count({ n: '*' }), [{ n: db.dialect === 'postgres' ? '0' : 0 }]);
      await assert.rejects(
        db.knex('record_store').insert({
          guid: '00000000-0000-4000-8000-000000000001',
          sync_id: 's',
          record: '{}',
          created_at: toDatabaseTime(db.dialect, new Date()),
        }),
        /readonly|read-only|read only/i,
      );
      await assert.rejects(
        db.knex.schema.createTable('nothing', (table) => table.integer('id')),
        /readonly|read-only|read only/i,
      );
    } finally {
      await db.close();
    }
    assert.equal(await database().admin.schema.hasTable('nothing'), false);
  });

  test('the database refuses a status outside Pending, InProgress, Complete, Failed', async () => {
    const row = {
      id: '00000000-0000-4000-8000-000000000001',
      process_id: 'p',
      start_type: 'manual',
      run_after: '2030-01-01 00:00:00',
      created_at: '2030-01-01 00:00:00',
      errors: '[]',
    };
    await assert.rejects(
      database()
        .admin('queue_items')
        .insert({ ...row, status: 'Done' }),
      /check|constraint/i,
    );
    await database()
      .admin('queue_items')
      .insert({ ...row, status: 'Pending' });
    await database().admin('queue_items').delete();
  });
});

test('opening fails clearly: a missing folder, a folder as file, a missing file to read, a server that does not answer', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'syncline-open-'));
  try {
    await assert.rejects(openDatabase(parseDatabaseUrl('sqlite:missing/queue.db', { baseDirectory: directory })), (error: Error) => {
      assert.ok(error instanceof DatabaseOpenError);
      assert.match(
        error.message,
        /^cannot open the runtime database sqlite:missing\/queue.db: the folder .*missing does not exist; create it or choose another file$/,
      );
      return true;
    });
    await assert.rejects(openDatabase(parseDatabaseUrl(directory)), /is a folder, not a file/);
    await assert.rejects(
      openDatabase(parseDatabaseUrl(join(directory, 'new.db')), { readOnly: true }),
      /^DatabaseOpenError: cannot read the runtime database .*new\.db: .*new\.db does not exist$/,
    );
    assert.deepEqual(readdirSync(directory), [], 'read-only, a missing file is not created');
    await assert.rejects(openDatabase(parseDatabaseUrl('postgres://nobody:secret@127.0.0.1:1/none')), (error: Error) => {
      assert.ok(error instanceof DatabaseOpenError);
      assert.match(error.message, /^cannot open the runtime database postgres:\/\/nobody:\*\*\*@127.0.0.1:1\/none: .*ECONNREFUSED/);
      return true;
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('the default SQLite file gets its folder created', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'syncline-open-'));
  try {
    const location = parseDatabaseUrl(join(directory, '.syncline', 'syncline.db'));
    assert.ok(location.dialect === 'sqlite');
    const db = await openDatabase({ ...location, createFolder: true });
    assert.deepEqual(await migrate(db), allMigrations);
    await db.close();
    await db.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

await describeEachDatabase('upgrading a runtime database with items in line', (database) => {
  test('items waiting or running from before the concurrency limits get the default: one run of their process at a time', async () => {
    const db = await openRuntimeDatabase(database());
    try {
      const before = migrations.slice(
        0,
        migrations.findIndex((migration) => migration.name === '006-queue-concurrency'),
      );
      await db.knex.migrate.latest({
        tableName: migrationTable,
        migrationSource: {
          getMigrations: async () => before,
          getMigrationName: (migration: Migration) => migration.name,
          getMigration: async (migration: Migration) => migration,
        },
      });
      const row = (id: string, status: string) => ({
        id,
        process_id: 'nightly',
        start_type: 'manual',
        status,
        attempts: status === 'Pending' ? 0 : 1,
        max_attempts: 1,
        run_after: toDatabaseTime(db.dialect, new Date()),
        created_at: toDatabaseTime(db.dialect, new Date()),
        errors: '[]',
      });
      await db
        .knex('queue_items')
        .insert([
          row('00000000-0000-4000-8000-000000000001', 'Pending'),
          row('00000000-0000-4000-8000-000000000002', 'InProgress'),
          row('00000000-0000-4000-8000-000000000003', 'Complete'),
        ]);
      await migrate(db);
      const keys = (await db.knex('queue_items').select('status', 'concurrency_key', 'concurrency_limit').orderBy('id')) as Array<{
        status: string;
        concurrency_key: string | null;
        concurrency_limit: number | null;
      }>;
      assert.deepEqual(
        keys.map((item) => [item.status, item.concurrency_key, item.concurrency_limit === null ? null : Number(item.concurrency_limit)]),
        [
          ['Pending', 'process:nightly', 1],
          ['InProgress', 'process:nightly', 1],
          ['Complete', null, null],
        ],
      );
    } finally {
      await db.close();
    }
  });
});
