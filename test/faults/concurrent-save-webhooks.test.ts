/**
 * Identical saveWithSystem calls at the same moment — a form posted twice, a caller retrying
 * before the first answer — spread over two real `syncline serve` processes on each database
 * (SQLite, PostgreSQL, MariaDB). Exactly one record is created; every other call is a match and
 * answers as one: skipped (the stored record through the result mapping) under `onMatch: skip`,
 * updated under `onMatch: update` — never a second record, never a 409:
 * - form posts to a webhook searching a column without a unique index, onMatch skip;
 * - JSON posts to a webhook searching a column with a unique index, onMatch update.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, it } from 'node:test';
import { startCli, type CliProcess } from '../support/cli-process.js';
import { describeEachDatabase } from '../support/databases.js';
import { openRuntime, runtimeUrl, writeDefinitions } from './fault-setup.js';

const calls = 8;
const rounds = 3;

const objects = `  Signup:
    table: signups
    key: [id]
    fields: { id: { type: Integer, readOnly: true }, email: { type: String }, name: { type: String } }
  Member:
    table: members
    key: [id]
    fields: { id: { type: Integer, readOnly: true }, email: { type: String }, name: { type: String } }`;

const webhooks = `kind: Webhook
id: signup-form-0000000001
action: saveWithSystem
system: work
object: Signup
writeMapping: '{ "email": email, "name": name }'
targetSearch: "email = #email#"
onNoMatch: create
onMatch: skip
resultMapping: '{ "id": id, "name": name, "action": $action }'
---
kind: Webhook
id: member-save-0000000001
action: saveWithSystem
system: work
object: Member
writeMapping: '{ "email": email, "name": name }'
targetSearch: "email = #email#"
onNoMatch: create
onMatch: update
resultMapping: '{ "id": id, "name": name, "action": $action }'`;

interface Saved {
  id: number;
  name: string;
  action: string;
}

await describeEachDatabase('identical saveWithSystem calls at once', (database) => {
  const servers: CliProcess[] = [];
  const bases: string[] = [];
  let definitions: string | undefined;

  before(async () => {
    const admin = database().admin;
    await admin.schema.createTable('signups', (t) => {
      t.increments('id');
      t.string('email', 200).index();
      t.string('name', 100);
    });
    await admin.schema.createTable('members', (t) => {
      t.increments('id');
      t.string('email', 200).unique();
      t.string('name', 100);
    });
    // Migrated once here, so the two servers do not race to create the runtime tables.
    await (await openRuntime(database())).close();
    definitions = writeDefinitions(database(), objects, webhooks);
    for (let n = 0; n < 2; n += 1) {
      const server = startCli(['serve', '--no-daemon', '--port', '0', '--definitions', definitions, '--db', runtimeUrl(database())]);
      servers.push(server);
      const listening = await server.waitForLog((entry) => /^serving on http:/.test(entry.msg));
      bases.push(/^serving on (\S+)$/.exec(listening.msg)![1]!);
    }
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGTERM')));
    if (definitions !== undefined) rmSync(definitions, { recursive: true, force: true });
  });

  /** `calls` identical posts at once, alternating between the two servers; answers the bodies. */
  async function postTogether(webhook: string, body: Record<string, string>, form: boolean): Promise<Saved[]> {
    const answers = await Promise.all(
      Array.from({ length: calls }, async (_, index) => {
        const response = await fetch(`${bases[index % bases.length]}/api/webhooks/${webhook}`, {
          method: 'POST',
          headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
          body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
        });
        return { status: response.status, text: await response.text() };
      }),
    );
    for (const answer of answers) assert.equal(answer.status, 200, `every call succeeds: ${answer.status} ${answer.text}`);
    return answers.map((answer) => JSON.parse(answer.text) as Saved);
  }

  async function rowsWith(table: string, email: string): Promise<Array<{ id: number; name: string }>> {
    return (await database().admin(table).where({ email }).select('id', 'name')) as Array<{ id: number; name: string }>;
  }

  it(`form posts, no unique index, onMatch skip: one record, ${calls - 1} calls answer it as skipped`, { timeout: 120_000 }, async () => {
    for (let round = 0; round < rounds; round += 1) {
      const email = `signup-${round}@example.com`;
      const saved = await postTogether('signup-form-0000000001', { email, name: `Signup ${round}` }, true);
      const rows = await rowsWith('signups', email);
      assert.equal(rows.length, 1, `round ${round}: one record, not ${rows.length}`);
      assert.deepEqual(
        saved.map((answer) => answer.action).sort(),
        ['created', ...Array(calls - 1).fill('skipped')],
        `round ${round}: one created, the rest skipped`,
      );
      for (const answer of saved)
        assert.deepEqual({ id: Number(answer.id), name: answer.name }, { id: Number(rows[0]!.id), name: `Signup ${round}` });
    }
  });

  it(`JSON posts, unique index, onMatch update: one record, ${calls - 1} calls answer it as updated`, { timeout: 120_000 }, async () => {
    for (let round = 0; round < rounds; round += 1) {
      const email = `member-${round}@example.com`;
      const saved = await postTogether('member-save-0000000001', { email, name: `Member ${round}` }, false);
      const rows = await rowsWith('members', email);
      assert.equal(rows.length, 1, `round ${round}: one record, not ${rows.length}`);
      assert.deepEqual(
        saved.map((answer) => answer.action).sort(),
        ['created', ...Array(calls - 1).fill('updated')],
        `round ${round}: one created, the rest updated`,
      );
      for (const answer of saved)
        assert.deepEqual({ id: Number(answer.id), name: answer.name }, { id: Number(rows[0]!.id), name: `Member ${round}` });
    }
  });
});
