/**
 * The filter compiler without a database: whatever a filter holds, values end up as bindings and
 * never in the SQL text, for every dialect; constant parts are decided up front; undeclared fields
 * are refused before any SQL exists.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import knexFactory from 'knex';
import { compileFilter } from '../../../../connectors/sql/compile-filter.js';
import type { ColumnOperand } from '../../../../connectors/sql/filter-operand.js';
import { identifier } from '../../../../connectors/sql/sql-fragment.js';
import type { Dialect } from '../../../../connectors/sql/sql-dialect.js';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { engines } from '../../../../connectors/sql/engines/index.js';
import { parseExpression, resolvePath } from '../../../../definitions/expression/index.js';

const CLIENTS: Record<Dialect, string> = { sqlite: 'sqlite3', postgres: 'pg', mysql: 'mysql2' };
const TYPES = { name: 'String', score: 'Integer', active: 'Boolean', born: 'Date', seen: 'DateTime' } as const;

function column(path: readonly string[]): ColumnOperand {
  const name = path.join('.');
  const type = (TYPES as Record<string, ColumnOperand['type']>)[name];
  if (type === undefined) throw new ConnectorError('unknown-field', `no field '${name}'`);
  return { kind: 'column', sql: identifier(`r.${name}`), type, label: name };
}

const PAYLOAD = "x'); DROP TABLE t; --";
const FILTERS = [
  `name = '${PAYLOAD.replaceAll("'", "''")}'`,
  'name = #p# OR contains(name, #p#) OR name LIKE #p#',
  'score > #p# AND active = #p# OR name <> #p#',
  "name IN ('a', #p#) AND NOT (born > 2020-01-01 OR seen = #p#)",
  'tolower(name) = #p# AND length(name) > 3 AND trim(name) <> #p#',
];

for (const dialect of Object.keys(CLIENTS) as Dialect[]) {
  test(`${dialect}: values are bound, never spliced into the SQL`, async () => {
    const knex = knexFactory({ client: CLIENTS[dialect], useNullAsDefault: true });
    try {
      for (const filter of FILTERS) {
        const fragment = compileFilter(parseExpression(filter), {
          engine: engines[dialect],
          column,
          placeholders: (path) => resolvePath({ p: PAYLOAD }, path),
        });
        const native = knex
          .raw(fragment.sql, fragment.bindings as never)
          .toSQL()
          .toNative();
        assert.doesNotMatch(native.sql, /DROP TABLE/, filter);
        assert.ok(
          native.bindings.some((binding) => typeof binding === 'string' && binding.includes('DROP TABLE')),
          filter,
        );
      }
    } finally {
      await knex.destroy();
    }
  });
}

test('parts without fields are decided by the evaluator', () => {
  const compile = (filter: string, p: unknown) =>
    compileFilter(parseExpression(filter), { engine: engines.sqlite, column, placeholders: (path) => resolvePath({ p }, path) }).sql;
  assert.equal(compile('#p# > 0', '5'), '(1 = 1)');
  assert.equal(compile('#p# > 0', 'abc'), '(NULL = 1)');
  assert.equal(compile("'a' = 'b'", null), '(1 = 0)');
  assert.equal(compile('name = #p#', undefined), '(NULL = 1)', 'a missing placeholder makes the comparison unknown');
});

test('undeclared fields are refused while compiling', () => {
  assert.throws(
    () => compileFilter(parseExpression("nope = 'x' OR name = 'y'"), { engine: engines.postgres, column }),
    (error: unknown) => error instanceof ConnectorError && error.code === 'unknown-field',
  );
});

test('a date-time ordered against ISO text of a millisecond compares the column itself, where an index serves it', async () => {
  const knexes = { postgres: knexFactory({ client: 'pg' }), sqlite: knexFactory({ client: 'sqlite3', useNullAsDefault: true }) };
  const compile = (filter: string, p: unknown, dialect: 'postgres' | 'sqlite' = 'postgres') => {
    const fragment = compileFilter(parseExpression(filter), {
      engine: engines[dialect],
      column,
      placeholders: (path) => resolvePath({ p }, path),
    });
    const native = knexes[dialect]
      .raw(fragment.sql, fragment.bindings as never)
      .toSQL()
      .toNative();
    return { sql: native.sql, bindings: native.bindings };
  };
  try {
    const t = '2024-01-05T10:00:00.000Z';
    const next = '2024-01-05T10:00:00.001Z';
    // The text stops at milliseconds: past t is from the next millisecond on, up to t is before it.
    assert.deepEqual(compile('seen >= #p#', t), { sql: '("r"."seen" >= CAST($1 AS TIMESTAMPTZ))', bindings: [t] });
    assert.deepEqual(compile('seen > #p#', t), { sql: '("r"."seen" >= CAST($1 AS TIMESTAMPTZ))', bindings: [next] });
    assert.deepEqual(compile('seen <= #p#', t), { sql: '("r"."seen" < CAST($1 AS TIMESTAMPTZ))', bindings: [next] });
    assert.deepEqual(compile('seen >= #p#', t, 'sqlite'), { sql: "(strftime('%Y-%m-%dT%H:%M:%fZ', `r`.`seen`) >= ?)", bindings: [t] });
    assert.deepEqual(compile('born < #p#', '2024-01-05'), { sql: '("r"."born" < CAST($1 AS DATE))', bindings: ['2024-01-05'] });
    // Equality, other spellings and impossible days stay comparisons of the text, as records carry it.
    assert.match(compile('seen = #p#', t).sql, /to_char/);
    assert.match(compile('seen > #p#', '2024-01-05T10:00:00Z').sql, /to_char/);
    assert.match(compile('seen > #p#', '2024-02-30T10:00:00.000Z').sql, /to_char/);
    assert.match(compile('born < #p#', '2024-02-30').sql, /to_char/);
  } finally {
    await Promise.all(Object.values(knexes).map((knex) => knex.destroy()));
  }
});
