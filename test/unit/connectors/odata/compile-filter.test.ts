/**
 * The odata connector's $filter compiler, on its own: what each construct becomes, the pair of
 * conditions (holds, fails) a predicate is compiled to and NOT swaps, literals as data whatever a
 * placeholder holds, LIKE patterns translated or refused, and the coercions of the evaluator.
 * Whether the service then selects what the evaluator selects is the conformance suite's to show
 * (test/integration/connectors/odata).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { compileFilter, compilePair } from '../../../../connectors/odata/filter/compile-filter.js';
import { filterText } from '../../../../connectors/odata/filter/filter-condition.js';
import type { FieldRef } from '../../../../connectors/odata/filter/filter-operand.js';
import { requestUrl } from '../../../../connectors/web/request-url.js';
import { parseExpression, resolvePath } from '../../../../definitions/expression/index.js';

const ref = (name: string, type: FieldRef['type'], edm: FieldRef['edm']): FieldRef => ({
  path: name,
  nullPath: name,
  type,
  edm,
  label: name,
});

const FIELDS: Record<string, FieldRef> = {
  name: ref('name', 'String', 'text'),
  email: ref('email', 'String', 'text'),
  score: ref('score', 'Integer', 'integer'),
  balance: ref('balance', 'Number', 'double'),
  active: ref('active', 'Boolean', 'boolean'),
  birthday: ref('birthday', 'Date', 'date'),
  updated_at: ref('updated_at', 'DateTime', 'datetime'),
  meta: ref('meta', 'Json', 'text'),
  uid: ref('uid', 'String', 'guid'),
};

function groupRef(field: string, type: string): FieldRef {
  const path = `entry/${field}`;
  return {
    path,
    nullPath: path,
    type: 'String',
    edm: 'text',
    label: `addresses.${type}.${field}`,
    entry: { member: 'addresses', typeTest: `entry/type eq '${type}'`, id: `addresses.${type}` },
  };
}

function scope(placeholders: Record<string, unknown> = {}) {
  return {
    field(path: readonly string[]): FieldRef {
      if (path.length === 3 && path[0] === 'addresses') return groupRef(path[2]!, path[1]!);
      const found = FIELDS[path.join('.')];
      if (found === undefined) throw new ConnectorError('unknown-field', `no field ${path.join('.')}`);
      return found;
    },
    placeholders: (path: readonly string[]) => resolvePath(placeholders, path),
  };
}

/** The $filter of a filter, and whether it is exact. */
function compiled(filter: string, placeholders: Record<string, unknown> = {}): string {
  return filterText(compileFilter(parseExpression(filter), scope(placeholders)));
}

function pair(filter: string, placeholders: Record<string, unknown> = {}): [string, string] {
  const { holds, fails } = compilePair(parseExpression(filter), scope(placeholders));
  return [filterText(holds), filterText(fails)];
}

function refused(filter: string, construct: RegExp): void {
  assert.throws(
    () => compiled(filter),
    (error: unknown) =>
      error instanceof ConnectorError &&
      error.code === 'unsupported' &&
      /the odata connector cannot filter by/.test(error.message) &&
      construct.test(error.message),
    filter,
  );
}

describe('literals are data', () => {
  test('quotes are doubled; other characters stay as they are in the filter text', () => {
    assert.equal(compiled("name = 'O''Brien'"), "name eq 'O''Brien'");
    assert.equal(compiled('name = #v#', { v: '100% & #1 + 2 = ü 🙂' }), "name eq '100% & #1 + 2 = ü 🙂'");
    assert.equal(compiled("name = ''"), "name eq ''");
  });

  test('placeholders trying to end the literal or the expression stay inside the literal', () => {
    assert.equal(compiled('name = #v#', { v: "' or 1 eq 1" }), "name eq ''' or 1 eq 1'");
    assert.equal(compiled('name = #v#', { v: ') or true or (' }), "name eq ') or true or ('");
    assert.equal(compiled('name = #v#', { v: "x') or contains(name,'" }), "name eq 'x'') or contains(name,'''");
    assert.equal(compiled('contains(name, #v#)', { v: "'),true)" }), "contains(name,'''),true)')");
    // A number placeholder holding text that is not a number is unknown, never spliced in.
    assert.equal(compiled('score = #v#', { v: '1 or 1 eq 1' }), 'false');
  });

  test('the URL escapes what would change the query: & # + % space and non-ASCII', () => {
    const filter = compiled('name = #v#', { v: "a&b#c+d%e f🙂'" });
    const url = requestUrl('crm', new URL('http://h/odata/'), 'Customers', { $filter: filter });
    assert.equal(url.search, '?$filter=name%20eq%20%27a%26b%23c%2Bd%25e%20f%F0%9F%99%82%27%27%27');
    assert.equal(url.searchParams.get('$filter'), filter);
  });

  test('numbers are written without exponent; dates and date-times as OData literals in UTC', () => {
    assert.equal(compiled('balance > 0.000001'), 'balance gt 0.000001');
    assert.equal(compiled('balance < 1e21'), 'balance lt 1000000000000000000000');
    assert.equal(compiled('balance = -0'), 'balance eq 0');
    assert.equal(compiled('updated_at >= 2024-03-04T07:06:07.089+02:00'), 'updated_at ge 2024-03-04T05:06:07.089Z');
    assert.equal(compiled('birthday = 1990-05-17'), 'birthday eq 1990-05-17');
  });
});

describe('three-valued logic on a two-valued service', () => {
  test('NOT swaps the pair instead of writing not', () => {
    assert.deepEqual(pair('score > 5'), ['score gt 5', 'score le 5']);
    assert.deepEqual(pair('NOT (score > 5)'), ['score le 5', 'score gt 5']);
    assert.deepEqual(pair('NOT NOT (score > 5)'), ['score gt 5', 'score le 5']);
  });

  test('ne is guarded: OData says null ne 5, the evaluator says unknown', () => {
    assert.deepEqual(pair('score <> 5'), ['score ne null and score ne 5', 'score eq 5']);
    assert.deepEqual(pair("NOT (name = 'x')"), ["name ne null and name ne 'x'", "name eq 'x'"]);
  });

  test('x = null is IS NULL; other comparisons with null are unknown either way', () => {
    assert.deepEqual(pair('email = null'), ['email eq null', 'email ne null']);
    assert.deepEqual(pair('email <> null'), ['email ne null', 'email eq null']);
    assert.deepEqual(pair('score > null'), ['false', 'false']);
    assert.deepEqual(pair('NOT (score > null)'), ['false', 'false']);
    assert.deepEqual(pair('email IS NOT NULL'), ['email ne null', 'email eq null']);
  });

  test('a missing placeholder makes its comparison unknown, and its NOT too', () => {
    assert.deepEqual(pair('email = #missing#'), ['false', 'false']);
    assert.deepEqual(pair('NOT (email = #missing#)'), ['false', 'false']);
    assert.equal(compiled('email = #missing# OR score = 1'), 'score eq 1');
  });

  test('AND and OR combine as Kleene logic does', () => {
    assert.deepEqual(pair("score > 5 AND name = 'x'"), ["score gt 5 and name eq 'x'", "score le 5 or name ne null and name ne 'x'"]);
    assert.deepEqual(pair('NOT (score < 30 OR active)'), ['score ge 30 and active eq false', 'score lt 30 or active eq true']);
    assert.equal(compiled('(score = 1 OR score = 2) AND active'), '(score eq 1 or score eq 2) and active eq true');
  });

  test('parts without a field are decided here', () => {
    assert.equal(compiled('#total# > 0 AND score > 90', { total: '5' }), 'score gt 90');
    assert.equal(compiled('#flag# AND active', { flag: 'false' }), 'false');
    assert.equal(compiled('#flag# OR active', { flag: 'false' }), 'active eq true');
    assert.equal(compiled("'a' = 'a'"), 'true');
  });

  test('a field compared with a field has both guarded (OData: null eq null is true)', () => {
    assert.deepEqual(pair('score = balance'), [
      'score ne null and balance ne null and score eq balance',
      'score ne null and balance ne null and score ne balance',
    ]);
  });
});

describe('IN, BETWEEN and the truth of a value', () => {
  test("IN is an or-chain under the evaluator's rules; the literal null in it is IS NULL", () => {
    assert.equal(compiled('score IN (1, 2, 3)'), 'score eq 1 or score eq 2 or score eq 3');
    assert.deepEqual(pair('score IN (42, null)'), ['score eq 42 or score eq null', 'score ne null and score ne 42']);
    assert.deepEqual(pair('score NOT IN (42, null)'), ['score ne null and score ne 42', 'score eq 42 or score eq null']);
    assert.deepEqual(pair('score IN (#missing#, 42)'), ['score eq 42', 'false']);
    assert.deepEqual(pair('score NOT IN (#missing#, 42)'), ['false', 'score eq 42']);
  });

  test('BETWEEN is both bounds', () => {
    assert.deepEqual(pair('score BETWEEN 10 AND 60'), ['score ge 10 and score le 60', 'score lt 10 or score gt 60']);
    assert.deepEqual(pair('score NOT BETWEEN 10 AND 60'), ['score lt 10 or score gt 60', 'score ge 10 and score le 60']);
  });

  test('a value as a condition', () => {
    assert.deepEqual(pair('active'), ['active eq true', 'active eq false']);
    assert.deepEqual(pair('score'), ['score ne null and score ne 0', 'score eq 0']);
    assert.deepEqual(pair('birthday'), ['birthday ne null', 'false']);
  });
});

describe('coercions', () => {
  test('numbers and numeric text against numbers; fractions against integers are rounded', () => {
    assert.equal(compiled("score = '42'"), 'score eq 42');
    assert.equal(compiled("score = 'abc'"), 'false');
    assert.deepEqual(pair('score < 4.5'), ['score le 4', 'score ge 5']);
    assert.deepEqual(pair('score >= 4.5'), ['score ge 5', 'score le 4']);
    assert.deepEqual(pair('score = 4.5'), ['false', 'score ne null']);
    assert.equal(compiled('balance = 4.5'), 'balance eq 4.5');
  });

  test('booleans against booleans, 1/0 and their spellings', () => {
    assert.equal(compiled("active = 'TRUE'"), 'active eq true');
    assert.equal(compiled('active = 0'), 'active eq false');
    assert.deepEqual(pair('active <> false'), ['active eq true', 'active eq false']);
    assert.deepEqual(pair('active = 2'), ['false', 'false']);
    assert.deepEqual(pair('score = true'), ['score eq 1', 'score eq 0']);
  });

  test('dates and date-times as instants', () => {
    assert.deepEqual(pair('birthday < 1990-05-17T12:00:00Z'), ['birthday le 1990-05-17', 'birthday gt 1990-05-17']);
    assert.deepEqual(pair('birthday = 1990-05-17T12:00:00Z'), ['false', 'birthday ne null']);
    assert.equal(compiled('birthday = 1990-05-17T02:00:00+02:00'), 'birthday eq 1990-05-17');
    assert.equal(compiled('updated_at < 2024-03-04'), 'updated_at lt 2024-03-04T00:00:00.000Z');
  });

  test('text against dates and date-times is their ISO text', () => {
    assert.equal(compiled("birthday = '1990-05-17'"), 'birthday eq 1990-05-17');
    assert.deepEqual(pair("birthday = '1990-05'"), ['false', 'birthday ne null']);
    assert.equal(compiled("updated_at = '2024-03-04T05:06:07.089Z'"), 'updated_at eq 2024-03-04T05:06:07.089Z');
    assert.deepEqual(pair("updated_at = '2024-03-04T05:06:07Z'"), ['false', 'updated_at ne null']);
    refused("birthday > '1990'", /ordering 'birthday' \(Date\) against text/);
  });

  test('GUIDs compare for equality only', () => {
    assert.equal(compiled("uid = '0f0e0d0c-0b0a-0908-0706-050403020100'"), 'uid eq 0f0e0d0c-0b0a-0908-0706-050403020100');
    assert.deepEqual(pair("uid = 'not a guid'"), ['false', 'uid ne null']);
    refused("uid > 'a'", /ordering the Guid field 'uid'/);
  });

  test('refused: what OData cannot compare as the evaluator does', () => {
    refused('name = 0', /comparing the String field 'name' with a number/);
    refused('name = true', /comparing the String field 'name' with a boolean/);
    refused('name = 1990-05-17', /comparing the String field 'name' with a date/);
    refused("meta = 'x'", /Json field 'meta'/);
    refused('meta', /the Json field 'meta' as a condition/);
    refused('birthday < updated_at', /comparing 'birthday' \(Date\) with 'updated_at' \(DateTime\)/);
    refused('score = name', /comparing 'score' \(Integer\) with 'name' \(String\)/);
  });
});

describe('LIKE and the string predicates', () => {
  test('literal text with % at its ends becomes startswith, endswith, contains or eq', () => {
    assert.deepEqual(pair("name LIKE 'A%'"), ["startswith(name,'A')", "name ne null and not startswith(name,'A')"]);
    assert.equal(compiled("name LIKE '%ace'"), "endswith(name,'ace')");
    assert.equal(compiled("name LIKE '%da%'"), "contains(name,'da')");
    assert.equal(compiled("name LIKE 'Ada'"), "name eq 'Ada'");
    assert.equal(compiled("name LIKE '%'"), 'name ne null');
    assert.equal(compiled("name LIKE '%%'"), 'name ne null');
    assert.equal(compiled("name LIKE ''"), "name eq ''");
    assert.deepEqual(pair("name NOT LIKE '%e%'"), ["name ne null and not contains(name,'e')", "contains(name,'e')"]);
  });

  test('the escape character makes % and _ literal; wildcard characters of other dialects are text', () => {
    assert.equal(compiled("name LIKE '100!%%' ESCAPE '!'"), "startswith(name,'100%')");
    assert.equal(compiled("name LIKE '%!_%' ESCAPE '!'"), "contains(name,'_')");
    assert.equal(compiled("name LIKE '[a-z]%'"), "startswith(name,'[a-z]')");
    assert.equal(compiled("name LIKE '%*%'"), "contains(name,'*')");
    assert.equal(compiled("name LIKE '%''%'"), "contains(name,'''')");
  });

  test('contains, startswith and endswith take literal text; the empty text matches every value', () => {
    assert.equal(compiled("contains(name, '%')"), "contains(name,'%')");
    assert.equal(compiled("startswith(name, 'a')"), "startswith(name,'a')");
    assert.equal(compiled("contains(name, '')"), 'name ne null');
    assert.equal(compiled('contains(name, #part#)', { part: "O'" }), "contains(name,'O''')");
    assert.equal(compiled('contains(name, #missing#)'), 'false');
  });

  test('refused: _ and % inside, patterns from fields, LIKE on what is not text', () => {
    refused("name LIKE '_da%'", /LIKE pattern with '_'/);
    refused("name LIKE 'A%e'", /LIKE pattern with '%' between characters/);
    refused("name LIKE '%a%e%'", /LIKE pattern with '%' between characters/);
    refused('name LIKE email', /LIKE pattern taken from a field/);
    refused('contains(name, email)', /contains\(\) with a field as its second argument/);
    refused("score LIKE '4%'", /LIKE on the Integer field 'score'/);
    refused("birthday LIKE '1990%'", /LIKE on the Date field 'birthday'/);
    refused("startswith(uid, '0f')", /startswith\(\) on the String field 'uid'/);
  });
});

describe('functions', () => {
  test("length of a String field is the service's own", () => {
    assert.deepEqual(pair('length(name) > 10'), ['length(name) gt 10', 'length(name) le 10']);
  });

  test('tolower, toupper and trim select every record with a value, for the evaluator to decide', () => {
    for (const filter of ["tolower(name) = 'ada'", "toupper(email) = 'X'", "trim(name) = 'Ada'", "tolower(name) LIKE 'ada%'"]) {
      const condition = compileFilter(parseExpression(filter), scope());
      assert.equal(condition.exact, false, filter);
      assert.match(filterText(condition), /^(name|email) ne null$/, filter);
    }
    assert.equal(compileFilter(parseExpression("tolower(name) = 'ada' AND score = 1"), scope()).exact, false);
    assert.equal(compileFilter(parseExpression("tolower(name) = 'ada' AND score = #missing#"), scope()).exact, true);
    assert.deepEqual(pair('tolower(active) = #x#', { x: 'true' }), ['false', 'false']);
    assert.deepEqual(pair('tolower(name) IS NULL'), ['name eq null', 'name ne null']);
  });

  test('a term written once for two parts stays inexact when either part was inexact', () => {
    // `email ne null` is exact for IS NOT NULL and a superset for tolower(): written once, it must stay a superset.
    for (const filter of ["email IS NOT NULL AND tolower(email) = 'x'", "tolower(email) = 'x' AND email IS NOT NULL"]) {
      const condition = compileFilter(parseExpression(filter), scope());
      assert.equal(filterText(condition), 'email ne null', filter);
      assert.equal(condition.exact, false, filter);
    }
    const nested = compileFilter(parseExpression("(email IS NOT NULL AND score = 1) AND (tolower(email) = 'x' AND score = 1)"), scope());
    assert.equal(filterText(nested), 'email ne null and score eq 1');
    assert.equal(nested.exact, false);
    assert.equal(compileFilter(parseExpression('email IS NOT NULL AND email IS NOT NULL'), scope()).exact, true);
  });
});

describe('group fields', () => {
  test('a field of the entry of one type is a condition inside a lambda over the collection', () => {
    assert.deepEqual(pair("addresses.main.city = 'London'"), [
      "addresses/any(entry:entry/type eq 'main' and entry/city eq 'London')",
      "addresses/any(entry:entry/type eq 'main' and entry/city ne null and entry/city ne 'London')",
    ]);
    assert.deepEqual(pair('addresses.invoice.city IS NULL'), [
      "not addresses/any(entry:entry/type eq 'invoice' and entry/city ne null)",
      "addresses/any(entry:entry/type eq 'invoice' and entry/city ne null)",
    ]);
    assert.equal(compiled("contains(addresses.main.city, 'o')"), "addresses/any(entry:entry/type eq 'main' and contains(entry/city,'o'))");
  });

  test('fields of one entry compare with each other; of two entries they are refused', () => {
    assert.equal(
      compiled('addresses.main.city = addresses.main.street'),
      "addresses/any(entry:entry/type eq 'main' and entry/city ne null and entry/street ne null and entry/city eq entry/street)",
    );
    refused(
      'addresses.main.city = addresses.invoice.city',
      /a group field compares only with constants and fields of the same group entry/,
    );
    refused('addresses.main.city = name', /a group field compares only/);
  });
});
