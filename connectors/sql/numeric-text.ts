/**
 * The number a text column spells, or NULL: the SQL side of the JS evaluator's rule that a number
 * and a numeric string compare as numbers (`zip = 22202` holds for zip '22202', is unknown for
 * 'SW1Y'). "Numeric" is exactly compare-values.ts's NUMERIC_TEXT: optional sign, digits with an
 * optional fraction (or a fraction alone), optional exponent, JS whitespace around.
 *
 * PostgreSQL and MariaDB test it with a regular expression (bound as a value). SQLite has no
 * REGEXP function, so its test is built from what it has: all digits are removed, the remaining
 * "skeleton" must be one of the valid shapes, and GLOBs check where the digits were.
 */
import { and, or, join, sql, value, type SqlFragment } from './sql-fragment.js';
import type { Engine } from './engines/index.js';

const NUMERIC_PATTERN = '^[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?$';

/** Every digit-free shape of a numeric text: [sign] [.] [e|E [sign]]. */
const SKELETONS: readonly string[] = ['', '+', '-'].flatMap((sign) =>
  ['', '.'].flatMap((dot) => ['', 'e', 'e+', 'e-', 'E', 'E+', 'E-'].map((exponent) => sign + dot + exponent)),
);

function glob(expression: SqlFragment, pattern: string): SqlFragment {
  return sql`(${expression} GLOB ${value(pattern)})`;
}

function sqliteIsNumeric(trimmed: SqlFragment): SqlFragment {
  let skeleton = trimmed;
  for (const digit of '0123456789') skeleton = sql`replace(${skeleton}, ${value(digit)}, '')`;
  const shapes = join(
    SKELETONS.map((shape) => value(shape)),
    ', ',
  );
  const hasExponent = glob(skeleton, '*[eE]*');
  return and([
    sql`(${skeleton} IN (${shapes}))`,
    // A digit follows the optional sign and the optional leading dot...
    or([glob(trimmed, '[0-9]*'), glob(trimmed, '[+-][0-9]*'), glob(trimmed, '.[0-9]*'), glob(trimmed, '[+-].[0-9]*')]),
    // ...a leading sign in the skeleton is really the first character...
    or([sql`(NOT ${glob(skeleton, '[+-]*')})`, glob(trimmed, '[+-]*')]),
    // ...and an exponent has its sign right after the e and ends in a digit.
    or([
      sql`(NOT ${hasExponent})`,
      and([glob(trimmed, '*[0-9]'), or([sql`(NOT ${glob(skeleton, '*[eE][+-]')})`, glob(trimmed, '*[eE][+-][0-9]*')])]),
    ]),
  ]);
}

function isNumeric(engine: Engine, trimmed: SqlFragment): SqlFragment {
  switch (engine.name) {
    case 'sqlite':
      return sqliteIsNumeric(trimmed);
    case 'postgres':
      return sql`(${trimmed} ~ ${value(NUMERIC_PATTERN)})`;
    case 'mysql':
      return sql`(${trimmed} REGEXP ${value(NUMERIC_PATTERN)})`;
  }
}

/** The number `textExpression` spells, or NULL when it is not entirely a number. */
export function numberFromText(engine: Engine, textExpression: SqlFragment): SqlFragment {
  const trimmed = engine.jsTrim(textExpression);
  // NUMERIC on PostgreSQL: a huge exponent overflows DOUBLE PRECISION with an error there.
  const number = engine.name === 'postgres' ? sql`CAST(${trimmed} AS NUMERIC)` : engine.castNumber(trimmed);
  return sql`(CASE WHEN ${isNumeric(engine, trimmed)} THEN ${number} END)`;
}
