/**
 * The two write actions through runWebhookAction on real databases: saveWithSync (the sync's where,
 * precondition, mapping, match and create/update/skip over the incoming records, per-record
 * results, resultMapping) and saveWithSystem (write mapping, target search with onNoMatch/onMatch,
 * several matches, a generated id returned through the result mapping) — and injection payloads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHttpProblem } from '../../../../runtime/errors.js';
import { describeEachRuntimeDatabase } from '../../../support/runtime-databases.js';
import { ids, useActionWorld } from './actions-fixture.js';

const ada = { id: 1, name: 'Ada', email: 'ada@example.com', active: true, score: 10, city: 'Lisbon' };

await describeEachRuntimeDatabase('webhook save actions', (runtime, database) => {
  const world = useActionWorld(runtime, database);
  const admin = () => database().admin;
  const accounts = async () =>
    (await admin()('accounts').select('number', 'name', 'score').orderBy('number')) as Array<Record<string, unknown>>;
  const contacts = async () =>
    (await admin()('contacts').select('id', 'email', 'name').orderBy('id')) as Array<{ id: number; email: string; name: string }>;

  test('saveWithSync: a record is mapped, matched and created, then updated; statistics and per-record results', async () => {
    const first = await world().call(ids.saveSync, ada);
    assert.deepEqual(first.answer, {
      status: 200,
      body: {
        statistics: { read: 1, created: 1, updated: 0, skipped: 0, failed: 0 },
        records: [{ index: 0, result: 'created', key: { number: 'C-1' } }],
      },
    });
    assert.deepEqual(await accounts(), [{ number: 'C-1', name: 'Ada', score: 10 }]);
    assert.equal((await admin()('account_addresses').where({ account_number: 'C-1' }).first())?.city, 'Lisbon');
    const second = await world().call(ids.saveSync, { ...ada, name: 'Ada L.' });
    assert.equal((second.answer.body as { records: Array<{ result: string }> }).records[0]?.result, 'updated');
    assert.deepEqual(await accounts(), [{ number: 'C-1', name: 'Ada L.', score: 10 }]);
    assert.ok(first.ticker.messages.some((m) => m.kind === 'written' && m.data?.created === 1));
  });

  test('saveWithSync: an array; the where and the precondition leave records out, a refused record fails alone', async () => {
    const records = [
      ada,
      { ...ada, id: 2, name: 'Inactive', active: false },
      { ...ada, id: 3, name: 'Negative', score: -1 },
      { ...ada, id: 4, name: null },
    ];
    const { answer } = await world().call(ids.saveSync, records);
    const body = answer.body as { statistics: Record<string, number>; records: Array<{ index: number; result: string; message?: string }> };
    assert.deepEqual(body.statistics, { read: 4, created: 1, updated: 0, skipped: 2, failed: 1 });
    assert.deepEqual(
      body.records.map((r) => [r.index, r.result]),
      [
        [0, 'created'],
        [1, 'skipped'],
        [2, 'skipped'],
        [3, 'failed'],
      ],
    );
    assert.ok(body.records[3]?.message, 'the failure says why');
    assert.deepEqual(
      (await accounts()).map((a) => a.number),
      ['C-1'],
    );
  });

  test('saveWithSync: every record failing answers 422 with each message; resultMapping answers the stored record', async () => {
    const { error } = await world().refused(ids.saveSync, { ...ada, name: null });
    assert.equal(error.status, 422);
    assert.equal(error.extra?.errors?.length, 1);
    const { answer } = await world().call(ids.saveSyncResult, { ...ada, id: 5, name: 'Ed' });
    assert.deepEqual(answer, { status: 200, body: { number: 'C-5', name: 'Ed' } });
    const many = await world().call(ids.saveSyncResult, [
      { ...ada, id: 6, name: 'F' },
      { ...ada, id: 7, active: false },
    ]);
    assert.deepEqual(many.answer.body, [{ number: 'C-6', name: 'F' }, null]);
    assert.deepEqual((await world().call(ids.saveSyncResult, { ...ada, active: false })).answer, { status: 204 });
  });

  test('saveWithSync: a NUL in the match value of one record fails that record alone on PostgreSQL; the others are written', async () => {
    const records = [ada, { ...ada, id: '2\u0000', name: 'Nul' }, { ...ada, id: 3, name: 'Cy' }];
    const { answer } = await world().call(ids.saveSync, records);
    const body = answer.body as { statistics: Record<string, number>; records: Array<{ index: number; result: string; message?: string }> };
    if (database().engine === 'postgres') {
      assert.deepEqual(body.statistics, { read: 3, created: 2, updated: 0, skipped: 0, failed: 1 });
      assert.deepEqual(
        body.records.map((r) => [r.index, r.result]),
        [
          [0, 'created'],
          [1, 'failed'],
          [2, 'created'],
        ],
      );
      assert.match(body.records[1]?.message ?? '', /^match search: .*NUL character \(U\+0000\)/);
      assert.deepEqual(
        (await accounts()).map((a) => a.number),
        ['C-1', 'C-3'],
      );
    } else {
      assert.deepEqual(body.statistics, { read: 3, created: 3, updated: 0, skipped: 0, failed: 0 });
      assert.deepEqual(
        (await accounts()).map((a) => a.number),
        ['C-1', 'C-2\u0000', 'C-3'],
      );
    }
  });

  test('saveWithSystem: a NUL in the searched value is refused on PostgreSQL (400, nothing written); elsewhere it is text like any other', async () => {
    const nul = { email: 'n\u0000l@example.com', name: 'Nul' };
    if (database().engine === 'postgres') {
      const { error } = await world().refused(ids.saveSystem, nul);
      const problem = toHttpProblem(error);
      assert.deepEqual([problem.status, problem.code], [400, 'invalid-value']);
      assert.match(problem.message, /NUL character \(U\+0000\)/);
      assert.deepEqual(await contacts(), []);
    } else {
      assert.equal((await world().call(ids.saveSystem, nul)).answer.status, 200);
      assert.equal(((await world().call(ids.saveSystem, { ...nul, name: 'Again' })).answer.body as { action: string }).action, 'updated');
      assert.deepEqual(
        (await contacts()).map((c) => [c.email, c.name]),
        [[nul.email, 'Again']],
      );
    }
    assert.equal((await world().call(ids.saveSystem, { email: 'fine@example.com', name: 'Fine' })).answer.status, 200);
  });

  test('saveWithSystem: no match → create, answering the generated id through the result mapping; a match → update', async () => {
    const created = await world().call(ids.saveSystem, { email: 'new@example.com', name: 'New' });
    const [row] = await contacts();
    assert.deepEqual(created.answer, { status: 200, body: { id: row!.id, name: 'New', action: 'created' } });
    assert.deepEqual(
      created.ticker.messages.map((m) => m.kind),
      ['start', 'filter', 'hits', 'written'],
    );
    const updated = await world().call(ids.saveSystem, { email: 'new@example.com', name: 'Renamed' });
    assert.deepEqual(updated.answer, { status: 200, body: { id: row!.id, name: 'Renamed', action: 'updated' } });
    assert.deepEqual(await contacts(), [{ id: row!.id, email: 'new@example.com', name: 'Renamed' }]);
  });

  test('saveWithSystem: several matches → 409 and nothing written', async () => {
    await admin()('contacts').insert([
      { email: 'twin@example.com', name: 'one' },
      { email: 'twin@example.com', name: 'two' },
    ]);
    const { error } = await world().refused(ids.saveSystem, { email: 'twin@example.com', name: 'three' });
    assert.equal(error.status, 409);
    assert.deepEqual(
      (await contacts()).map((c) => c.name),
      ['one', 'two'],
    );
  });

  test('saveWithSystem: onNoMatch skip → 204 and nothing written; onMatch skip → the existing record through the result mapping', async () => {
    assert.deepEqual((await world().call(ids.saveSystemSkip, { email: 'none@example.com', name: 'x' })).answer, { status: 204 });
    assert.deepEqual(await contacts(), []);
    await admin()('contacts').insert({ email: 'here@example.com', name: 'Here' });
    const [existing] = await contacts();
    assert.deepEqual((await world().call(ids.saveSystemSkip, { email: 'here@example.com', name: 'Changed' })).answer, {
      status: 200,
      body: { id: existing!.id },
    });
    assert.equal((await contacts())[0]?.name, 'Here');
  });

  test('saveWithSystem searching a read-only field: an id no record has creates one with a generated id', async () => {
    const created = await world().call(ids.saveSystemById, { id: 999_999, email: 'gen@example.com', name: 'Generated' });
    const [row] = await contacts();
    assert.notEqual(row!.id, 999_999);
    assert.deepEqual(created.answer, { status: 200, body: { id: row!.id, name: 'Generated', action: 'created' } });
    const updated = await world().call(ids.saveSystemById, { id: row!.id, email: 'gen@example.com', name: 'Renamed' });
    assert.deepEqual(updated.answer, { status: 200, body: { id: row!.id, name: 'Renamed', action: 'updated' } });
  });

  test('saveWithSystem without mappings: the data as it is, groups included, written by key; 204', async () => {
    const { answer } = await world().call(ids.saveSystemAccount, { number: 'A-1', name: 'Direct', addresses: { main: { city: 'Porto' } } });
    assert.deepEqual(answer, { status: 204 });
    assert.deepEqual(await accounts(), [{ number: 'A-1', name: 'Direct', score: null }]);
    assert.equal((await admin()('account_addresses').where({ account_number: 'A-1' }).first())?.city, 'Porto');
    const { error } = await world().refused(ids.saveSystemAccount, [{ number: 'A-2', name: 'x' }]);
    assert.equal(error.status, 400);
  });

  test('saveWithSystem: a "__proto__" key is a field like any other (unknown, refused), never the key of another record', async () => {
    await world().call(ids.saveSystemAccount, { number: 'A-1', name: 'Before' });
    // As JSON.parse reads a body: "__proto__" is an own key of the data.
    const data = JSON.parse('{"name": "Overwritten", "__proto__": {"number": "A-1"}}') as Record<string, unknown>;
    const { error } = await world().refused(ids.saveSystemAccount, data);
    const problem = toHttpProblem(error);
    assert.equal(problem.status, 400, problem.detail);
    assert.match(problem.detail, /__proto__/);
    assert.deepEqual(await accounts(), [{ number: 'A-1', name: 'Before', score: null }]);
  });

  test('injection payloads in the target search are values: they match nothing, rows stay as they were', async () => {
    await admin()('contacts').insert([
      { email: 'a@example.com', name: 'A' },
      { email: 'b@example.com', name: 'B' },
    ]);
    for (const payload of ["x' OR '1'='1", "x'; DROP TABLE contacts; --", "') OR ('a'='a"]) {
      // No match and onNoMatch create: a new contact whose email is the payload, nothing else touched.
      await world().call(ids.saveSystem, { email: payload, name: 'P' });
      assert.deepEqual((await world().call(ids.saveSystemSkip, { email: `${payload}!`, name: 'Q' })).answer, { status: 204 });
    }
    const all = await contacts();
    assert.equal(all.length, 5);
    assert.deepEqual(
      all.slice(0, 2).map((c) => c.name),
      ['A', 'B'],
    );
    assert.equal(
      await admin()('customers')
        .count({ n: '*' })
        .then((r) => Number(r[0]!.n)),
      5,
    );
  });
});
