/**
 * Filters every connector must answer exactly as the JS evaluator does over the same records. Each
 * case is run through the connector (pushed down) and through `evaluateCondition` over the records
 * read without a filter; the selected ids must be the same.
 */

export interface FilterCase {
  filter: string;
  placeholders?: Record<string, unknown>;
}

const plain = (...filters: string[]): FilterCase[] => filters.map((filter) => ({ filter }));

export const FILTER_CASES: readonly FilterCase[] = [
  // Equality and order of text: case, trailing and leading spaces, code point order.
  ...plain("name = 'Ada Lovelace'", "name = 'ada lovelace'", "name <> 'Ada Lovelace'", "name = 'Ada'", "name = 'Ada '", "name != 'Ada'"),
  ...plain("name < 'b'", "name >= 'M'", "name > 'Zoë'", "name <= 'B'", "name ge 'a' and name lt 'c'"),
  // Numbers, ranges, IN lists, with nulls.
  ...plain(
    'score < 50',
    'score >= 50 AND score <= 80',
    'score BETWEEN 10 AND 60',
    'score NOT BETWEEN 10 AND 60',
    'balance > 10.5',
    'balance <= -20',
  ),
  ...plain(
    'id IN (1, 2, 3, 99)',
    'id NOT IN (1, 2, 3)',
    'score IN (42, null)',
    'score NOT IN (42, null)',
    "name IN ('Ada', 'ada lovelace', 'B')",
    'id in (5)',
  ),
  // Null semantics.
  ...plain(
    'email IS NULL',
    'email IS NOT NULL',
    'email = null',
    'email <> null',
    "email = ''",
    'score > null',
    'NOT (score > null)',
    'active = null',
  ),
  { filter: 'email = #missing#' },
  { filter: 'email <> #missing#' },
  { filter: 'NOT (email = #missing#)' },
  { filter: 'score IN (#missing#, 42)' },
  // Logic.
  ...plain(
    "(name LIKE 'A%' OR score > 90) AND NOT active",
    "NOT (name = 'Ada' OR score < 30)",
    'active OR score > 50',
    'NOT (active AND score > 50)',
  ),
  // LIKE: case-sensitive, % and _, escapes, wildcards in data, unicode.
  ...plain(
    "name LIKE 'A%'",
    "name LIKE 'a%'",
    "name LIKE '%a%'",
    "name LIKE '_da%'",
    "name NOT LIKE '%e%'",
    "name LIKE '%_%'",
    "name LIKE '___'",
  ),
  ...plain(
    "name LIKE '100!%%' ESCAPE '!'",
    "name LIKE '%!_%' ESCAPE '!'",
    "name LIKE '%\\%'",
    "name LIKE 'Zo_'",
    "name LIKE '%🙂%'",
    "name LIKE '_🙂'",
    "name LIKE '🙂'",
  ),
  ...plain(
    "name LIKE '%*%'",
    "name LIKE '[a-z]%'",
    "name LIKE '%?%'",
    "email LIKE '%@Example.com'",
    "score LIKE '4%'",
    "birthday LIKE '1990%'",
  ),
  // OData string predicates.
  ...plain(
    "contains(name, 'ar')",
    "startswith(name, 'A')",
    "startswith(name, 'a')",
    "endswith(email, '.com')",
    "contains(name, '%')",
    "contains(name, '_')",
    "contains(name, '')",
  ),
  { filter: 'contains(name, #part#)', placeholders: { part: "O'" } },
  { filter: 'startswith(name, #part#)', placeholders: { part: '🙂' } },
  // String functions.
  ...plain(
    "tolower(name) = 'ada lovelace'",
    "toupper(email) = 'ADALOVEL1@EXAMPLE.COM'",
    'length(name) > 10',
    'length(name) = 1',
    "trim(name) = 'Ada'",
    "tolower(name) LIKE 'ada%'",
  ),
  // Booleans, as values and spelled.
  ...plain(
    'active',
    'NOT active',
    'active = true',
    'active = 1',
    "active = 'false'",
    'active <> false',
    "active = 'yes'",
    'score = true',
    'name = true',
    'name = false',
  ),
  // Numbers spelled as text, and text spelled as numbers.
  ...plain(
    "score = '42'",
    "score = 'abc'",
    "score > '40'",
    'name = 0',
    'addresses.main.zip = 2139',
    'addresses.main.zip > 1000',
    'addresses.main.zip = 1000',
    'addresses.main.zip = 5',
    'addresses.main.zip = 0.5',
    'addresses.main.zip < 0',
    'addresses.main.zip = 150',
    "addresses.main.zip = '02139'",
  ),
  // Dates and date-times: literals are instants, strings compare as the text a record holds.
  ...plain(
    'birthday = 1990-05-17',
    'birthday > 1990-01-01',
    'birthday < 1990-05-17T12:00:00Z',
    'birthday <= 1990-05-17T12:00:00Z',
    'birthday > 1990-05-17T12:00:00Z',
    'birthday = 1990-05-17T12:00:00Z',
    'birthday <> 1990-05-17T12:00:00Z',
  ),
  ...plain(
    "birthday = '1990-05-17'",
    'birthday = 1990-05-17T00:00:00Z',
    'birthday = 1990-05-17T02:00:00+02:00',
    "birthday IN (1990-05-17, '1990-05-17', 1991-01-01T10:00:00Z)",
    'birthday BETWEEN 1960-01-01 AND 1980-12-31',
  ),
  ...plain(
    'updated_at > 2024-06-01T00:00:00Z',
    'updated_at = 2024-03-04T05:06:07.089Z',
    'updated_at = 2024-03-04T07:06:07.089+02:00',
    "updated_at = '2024-03-04T05:06:07.089Z'",
    "updated_at = '2024-03-04T05:06:07Z'",
    'updated_at < 2024-03-04',
    'updated_at',
    'birthday',
  ),
  // Comparisons between fields.
  ...plain('score = balance', 'score < balance', 'name = email', 'birthday < updated_at', "tolower(name) = tolower('ADA')"),
  // Group fields: the entry of one type, as records carry it.
  ...plain(
    "addresses.main.city = 'London'",
    "addresses.main.city <> 'London'",
    "NOT (addresses.main.city = 'London')",
    'addresses.invoice.city IS NULL',
    'addresses.invoice.street IS NOT NULL',
  ),
  ...plain(
    "addresses.main.city = 'london' OR addresses.invoice.city = 'London'",
    "contains(addresses.main.city, 'o')",
    "addresses.main.country IN ('GB')",
    'addresses.main.city = addresses.invoice.city',
  ),
  // Placeholders: always values, never syntax; resolved by the same coercion rules.
  { filter: 'name = #name#', placeholders: { name: "O'Brien" } },
  { filter: 'score > #min#', placeholders: { min: '40' } },
  { filter: 'score > #min#', placeholders: { min: 'abc' } },
  { filter: 'score > #min#', placeholders: { min: 40 } },
  { filter: '#flag# AND active', placeholders: { flag: 'false' } },
  { filter: '#flag# OR active', placeholders: { flag: 'false' } },
  { filter: '#total# > 0 AND score > 90', placeholders: { total: '5' } },
  { filter: 'active = #flag#', placeholders: { flag: 'TRUE' } },
  { filter: 'name IN (#a#, #b#)', placeholders: { a: 'Ada', b: null } },
  { filter: 'addresses.main.city = #city.name#', placeholders: { city: { name: "St John's" } } },
  { filter: 'birthday = #day#', placeholders: { day: '1990-05-17' } },
  { filter: 'id = #id#', placeholders: { id: '7' } },
  { filter: 'id = #id#', placeholders: { id: { nested: true } } },
];

/** Filters naming fields the object does not have. */
export const UNKNOWN_FIELD_FILTERS: readonly string[] = [
  'nope = 1',
  "addresses.city = 'London'",
  "addresses.home.city = 'x'",
  "addresses.main.planet = 'x'",
  'customers.name = 1',
  "__proto__ = 'x'",
];
