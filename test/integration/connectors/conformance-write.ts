/**
 * Conformance: writes. Create (with a key the system generates, where it does), update by key and
 * by match, group entries upserted by type, and the refusals — invalid values, unknown fields,
 * read-only objects, systems and fields, ambiguous matches, missing required values, unique values
 * the system keeps — each with its error code and a message that names the field and never the
 * system's own words (SQL, an upstream error body).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RecordData, WriteRequest } from '../../../connectors/connection.js';
import { ConnectorError, type ConnectorErrorCode } from '../../../connectors/connector-error.js';
import { readAll, rejectsWith, type SuiteContext } from './conformance.js';

async function readOne(context: SuiteContext, object: string, id: Record<string, unknown>): Promise<RecordData | undefined> {
  return (await readAll(context.connection(), object, { id })).records[0];
}

export function writeConformance(context: SuiteContext): void {
  const connection = () => context.connection();
  const { target, typedGroups } = context;
  const groups = (entries: Record<string, RecordData>) => (typedGroups ? { groups: { addresses: entries } } : {});

  test('create returns the generated key and stores every type faithfully', async () => {
    const values = {
      name: 'Créée «new» 🙂',
      email: "new'one@example.com",
      active: false,
      score: -12,
      balance: 1234.5,
      birthday: '2001-02-03',
      updated_at: '2024-12-31T23:59:58.123+01:00',
      notes: 'line 1\nline 2\ttab \\ backslash',
      meta: { nested: { list: [1, 'two', null] }, flag: true },
    };
    const given = target.generatedKeys ? values : { id: 1000, ...values };
    const result = await connection().write('Customer', { values: given, ...groups({ main: { city: 'Paris', zip: '75001' } }) });
    assert.equal(result.action, 'created');
    assert.equal(typeof result.key.id, 'number');
    if (!target.generatedKeys) assert.deepEqual(result.key, { id: 1000 });
    const stored = await readOne(context, 'Customer', { id: result.key.id });
    assert.deepEqual(stored, {
      id: result.key.id,
      ...values,
      updated_at: '2024-12-31T22:59:58.123Z',
      ...(typedGroups ? { addresses: { main: { street: null, city: 'Paris', zip: '75001', country: null } } } : {}),
    });
  });

  test('update by key changes only the given fields', async () => {
    const before = (await readOne(context, 'Customer', { id: 3 }))!;
    const result = await connection().write('Customer', { values: { id: 3, email: 'changed@example.com', score: '77' } });
    assert.deepEqual(result, { action: 'updated', key: { id: 3 } });
    assert.deepEqual(await readOne(context, 'Customer', { id: 3 }), { ...before, email: 'changed@example.com', score: 77 });
  });

  test('update by match columns; no match creates with the match values', async () => {
    const updated = await connection().write('Account', {
      match: { Email: 'first@example.com' },
      values: { AccountName: 'First, renamed' },
    });
    assert.deepEqual(updated, { action: 'updated', key: { AccountNumber: 'A-1' } });
    assert.equal((await readOne(context, 'Account', { AccountNumber: 'A-1' }))?.AccountName, 'First, renamed');
    assert.equal((await readOne(context, 'Account', { AccountNumber: 'a-1' }))?.AccountName, 'first lower', 'matching is case-sensitive');
    const created = await connection().write('Account', { match: { AccountNumber: 'B-9' }, values: { AccountName: 'Created by match' } });
    assert.deepEqual(created, { action: 'created', key: { AccountNumber: 'B-9' } });
    const byKey = await connection().write('Account', { values: { AccountNumber: 'b-9', AccountName: 'Other case' } });
    assert.deepEqual(byKey, { action: 'created', key: { AccountNumber: 'b-9' } });
  });

  test('group entries are upserted by type', { skip: !typedGroups && 'no typed groups' }, async () => {
    const before = (await readOne(context, 'Customer', { id: 1 }))!;
    const previous = before.addresses as Record<string, RecordData>;
    await connection().write('Customer', {
      values: { id: 1 },
      groups: { addresses: { main: { city: 'Leeds' }, invoice: { street: '1 Invoice Rd', country: 'IE' } } },
    });
    const after = (await readOne(context, 'Customer', { id: 1 }))!;
    assert.deepEqual(after.addresses, {
      main: { ...previous.main, city: 'Leeds' },
      invoice: { ...(previous.invoice ?? { street: null, city: null, zip: null, country: null }), street: '1 Invoice Rd', country: 'IE' },
    });
    assert.deepEqual({ ...after, addresses: undefined }, { ...before, addresses: undefined });
  });

  test('values that do not fit their type are refused with invalid-value naming the field', async () => {
    const cases: Array<[RecordData, RegExp]> = [
      [{ name: 'x', score: 'abc' }, /Customer\.score: expected a whole number/],
      [{ name: 'x', score: 1.5 }, /Customer\.score/],
      [{ name: 'x', balance: 'lots' }, /Customer\.balance: expected a number/],
      [{ name: 'x', active: 'maybe' }, /Customer\.active: expected true or false/],
      [{ name: 'x', birthday: '2001-02-30' }, /Customer\.birthday: expected a date/],
      [{ name: 'x', updated_at: 'yesterday' }, /Customer\.updated_at: expected an ISO 8601 date-time/],
      [{ name: 'x'.repeat(201) }, /Customer\.name: longer than the 200 characters/],
      [{ name: null }, /Customer\.name: a value is required/],
      [{ name: { first: 'x' } }, /Customer\.name: expected text/],
    ];
    for (const [values, message] of cases) await rejectsWith(() => connection().write('Customer', { values }), 'invalid-value', message);
    if (!typedGroups) return;
    await rejectsWith(
      () => connection().write('Customer', { values: { id: 2 }, groups: { addresses: { home: { city: 'x' } } } }),
      'invalid-value',
      /'home' is not one of its types \(main, invoice\)/,
    );
  });

  test('undeclared fields are refused with unknown-field listing the known ones', async () => {
    await rejectsWith(
      () => connection().write('Customer', { values: { name: 'x', nope: 1 } }),
      'unknown-field',
      /Customer has no field 'nope'; its fields are id, name, email/,
    );
    if (typedGroups) {
      await rejectsWith(() => connection().write('Customer', { values: { name: 'x', addresses: {} } }), 'unknown-field', /it is a group/);
      await rejectsWith(
        () => connection().write('Customer', { values: { id: 2 }, groups: { addresses: { main: { planet: 'x' } } } }),
        'unknown-field',
        /addresses\.main\.planet/,
      );
    }
    await rejectsWith(() => connection().write('Customer', { values: { id: 2 }, groups: { contacts: {} } }), 'unknown-field', /contacts/);
    await rejectsWith(() => connection().write('Customer', { match: { nope: 1 }, values: { name: 'x' } }), 'unknown-field');
    await rejectsWith(() => connection().write('Nope', { values: {} }), 'unknown-object');
  });

  test('read-only objects, systems and fields refuse writes', async () => {
    await rejectsWith(() => connection().write('ReadOnlyCustomer', { values: { id: 1, name: 'x' } }), 'read-only', /ReadOnlyCustomer/);
    const readOnlySystem = target.module.createConnection(target.system({ readOnly: true }), { baseDirectory: target.baseDirectory() });
    try {
      await rejectsWith(() => readOnlySystem.write('Customer', { values: { id: 1, name: 'x' } }), 'read-only');
    } finally {
      await readOnlySystem.close();
    }
    // A key the system generates is read-only: it may identify a record, never be set.
    if (!target.generatedKeys) return;
    await rejectsWith(
      () => connection().write('Customer', { match: { email: 'changed@example.com' }, values: { id: 5, name: 'x' } }),
      'read-only',
      /Customer\.id is read-only/,
    );
    await rejectsWith(
      () => connection().write('Customer', { values: { id: 999_999, name: 'x' } }),
      'read-only',
      /Customer\.id is read-only/,
    );
    // The full write's idcolumns name the record; a different value for the same read-only field in
    // columns is an attempt to change it, not a no-op.
    await rejectsWith(
      () => connection().write('Customer', { match: { id: 1 }, values: { id: 5, name: 'x' } }),
      'read-only',
      /Customer\.id is read-only/,
    );
    assert.equal((await readOne(context, 'Customer', { id: 1 }))?.name === 'x', false, 'nothing was written');
  });

  test('ambiguous matches, missing required values and constraint violations are rejected safely', async () => {
    const counts = await target.counts();
    await rejectsWith(
      () => connection().write('Customer', { match: { active: true }, values: { notes: 'x' } }),
      'rejected',
      /more than one record matches active/,
    );
    await rejectsWith(
      () => connection().write('Customer', { values: { email: 'no-name@example.com' } }),
      'rejected',
      /a new record needs name/,
    );
    if (target.uniqueConstraints) {
      const duplicate = await rejectsWith(
        () => connection().write('Account', { values: { AccountNumber: 'C-1', AccountName: 'Dup', Email: 'lower@example.com' } }),
        'rejected',
        /same unique value/,
      );
      assert.doesNotMatch(duplicate.message, /insert|accounts|lower@example|constraint failed|duplicate entry/i);
      assert.ok(duplicate.cause, "the system's own error is kept as cause");
    }
    assert.deepEqual(await target.counts(), counts);
    assert.equal(
      (await readAll(connection(), 'Account', { id: { AccountNumber: 'C-1' } })).records.length,
      0,
      'nothing of a refused write remains',
    );
  });

  test('checkWrite answers, without asking the system, what write refuses before it asks', async () => {
    const counts = await target.counts();
    /** checkWrite's answer is write's refusal, code and message. */
    const alike = async (
      object: string,
      request: WriteRequest,
      action: 'create' | 'update',
      code: ConnectorErrorCode,
      message?: RegExp,
    ) => {
      const checked = connection().checkWrite(object, request, action);
      const refused = await rejectsWith(() => connection().write(object, request), code, message);
      assert.ok(checked instanceof ConnectorError, `checkWrite passed what write refuses: ${refused.message}`);
      assert.deepEqual([checked.code, checked.message], [refused.code, refused.message]);
    };
    const refusedValues: Array<[RecordData, ConnectorErrorCode]> = [
      [{ name: 'x', score: 'abc' }, 'invalid-value'],
      [{ name: 'x'.repeat(201) }, 'invalid-value'],
      [{ name: null }, 'invalid-value'],
      [{ name: 'x', nope: 1 }, 'unknown-field'],
    ];
    for (const [values, code] of refusedValues) await alike('Customer', { values }, 'create', code);
    await alike('Customer', { values: { email: 'no-name@example.com' } }, 'create', 'rejected', /a new record needs name/);
    await alike('Customer', { match: { nope: 1 }, values: { name: 'x' } }, 'create', 'unknown-field');
    await alike('Customer', { values: { id: 2 }, groups: { contacts: {} } }, 'update', 'unknown-field');
    await alike('ReadOnlyCustomer', { values: { id: 1, name: 'x' } }, 'update', 'read-only');
    await alike('Nope', { values: {} }, 'create', 'unknown-object');
    if (typedGroups) {
      await alike('Customer', { values: { id: 2 }, groups: { addresses: { home: { city: 'x' } } } }, 'update', 'invalid-value');
      await alike('Customer', { values: { id: 2 }, groups: { addresses: { main: { planet: 'x' } } } }, 'update', 'unknown-field');
    }
    if (target.generatedKeys) {
      await alike('Customer', { values: { id: 999_999, name: 'x' } }, 'create', 'read-only', /Customer\.id is read-only/);
      await alike('Customer', { match: { id: 1 }, values: { id: 5, name: 'x' } }, 'update', 'read-only');
    }
    const readOnlySystem = target.module.createConnection(target.system({ readOnly: true }), { baseDirectory: target.baseDirectory() });
    try {
      assert.equal(readOnlySystem.checkWrite('Customer', { values: { id: 1, name: 'x' } }, 'update')?.code, 'read-only');
    } finally {
      await readOnlySystem.close();
    }
    // What only a create needs, an update does not; writes that fit pass.
    assert.equal(connection().checkWrite('Customer', { values: { email: 'no-name@example.com' } }, 'update'), undefined);
    assert.equal(connection().checkWrite('Customer', { values: { id: 3, email: 'fits@example.com', score: '77' } }, 'update'), undefined);
    assert.equal(
      connection().checkWrite('Account', { match: { AccountNumber: 'Z-1' }, values: { AccountName: 'New' } }, 'create'),
      undefined,
    );
    assert.deepEqual(await target.counts(), counts, 'nothing was written');
  });
}
