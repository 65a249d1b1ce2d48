/**
 * What each problem code means, in one line: the rule a report names (SARIF's
 * `tool.driver.rules`, which GitHub code scanning shows beside every alert). The problem's own
 * message says what is wrong in the case at hand; this says what the check is about.
 *
 * A code missing here still reports (problemRule falls back to a description made from the code);
 * test/unit/definitions/problem-codes.test.ts keeps every code the invalid fixtures produce listed.
 */

/** Codes grouped by where they come from; the order is the order a reader meets them. */
const descriptions: Readonly<Record<string, string>> = {
  // Files and YAML
  'no-definitions': 'A definitions directory holds no *.yaml or *.yml file',
  'link-outside': 'A symbolic link leads outside the definitions directory and is not read',
  'file-unreadable': 'A definition file cannot be read',
  'file-too-large': 'A definition file is larger than a definition file may be',
  'not-yaml': 'A definition file is not a YAML text file',
  'not-utf8': 'A definition file is not UTF-8 text',
  'yaml-syntax': 'The YAML does not parse',
  'yaml-aliases': 'The YAML uses more aliases than allowed (alias expansion is bounded)',
  'yaml-warning': 'The YAML reader ignored something the file says (an unknown tag); a warning',
  'not-a-definition': 'A YAML document is not a mapping with kind and id',
  'missing-kind': "A definition has no 'kind'",
  'unknown-kind': "A definition's kind is none of System, Sync, Webhook, Flow, ApiClient",
  'missing-id': "A definition has no usable 'id'",
  'duplicate-id': 'Two definitions of one kind share an id, or a Flow has the id of a Sync',
  // Substitution
  'env-unset': 'A ${env:NAME} names an unset variable and gives no default',
  substitution: 'A ${env:..} or ${file:..} substitution is malformed',
  'file-missing': 'A ${file:..} names a file that does not exist',
  'file-outside': 'A ${file:..} leads outside the definitions directory',
  // JSON Schema of the kinds
  'schema-unknown-property': 'A property the kind does not have (often a misspelling)',
  'schema-required': 'A required property is missing',
  'schema-type': 'A value has the wrong type',
  'schema-enum': 'A value is not one of those allowed',
  'schema-const': 'A value must be exactly one given value',
  'schema-pattern': 'A text value does not have the required form',
  'schema-format': 'A value is not valid in its format (a URI, a date …)',
  'schema-range': 'A number or length is out of its range',
  'schema-unique': 'A list holds the same item twice',
  'schema-name': 'A property name is not allowed here',
  'schema-form': 'A value fits none of the forms allowed here',
  'json-schema': "A webhook's request or response schema is not a valid JSON Schema",
  // References and fields
  'unknown-reference': 'A reference names a System, object, Sync, Flow or query that is not defined',
  'unknown-field': 'A field is not declared by the object or query it belongs to',
  'unknown-target-field': 'A mapping writes a field the target object does not declare',
  'unknown-placeholder': 'A #placeholder# has no value where it is used',
  'unmapped-placeholder': "A match placeholder names a field the sync's mapping does not produce",
  'name-clash': 'Two things that share one namespace have the same name',
  'duplicate-column': 'A query names a column twice',
  // Expressions, orders, mappings
  'expression-syntax': 'A filter or condition does not parse',
  'order-syntax': 'A sort order does not parse',
  'jsonata-syntax': 'A JSONata mapping does not compile',
  'unknown-function': 'A JSONata mapping calls a function that neither JSONata nor the mapping defines',
  'duplicate-mapping-key': 'A JSONata mapping gives one key twice in an object, which JSONata refuses whenever it builds it',
  'slow-regex': 'A regular expression in a mapping repeats a group whose every part repeats, which takes exponential time on some inputs',
  'query-placeholder': 'A query statement has a placeholder other than #FlowFilter#, which is not replaced',
  'query-cut-by-comment': "An unquoted YAML value was cut short at ' #', which starts a comment",
  // Syncs, flows, schedules
  'source-conflict': "A sync's source combines the record store with a system read",
  'source-incomplete': "A sync's source does not say what to read",
  'match-without-field': "A sync's match.where compares nothing of the target",
  'read-only-target': 'A write goes to a read-only System or object',
  'unsupported-capability': "A definition needs an operation its System's connector cannot do",
  'flow-first-step': "A flow's first step does not read the record store the flow starts from",
  'flow-cycle': 'Flows call each other in a cycle',
  'flow-depth': 'Flows nest more levels deep than flows may',
  'concurrency-group': 'Members of one concurrency group disagree on its settings',
  schedule: 'A schedule gives neither or both of every and cron',
  cron: 'A cron expression or time zone is not valid',
  'invalid-limit': "A System's limits are out of range",
  'duration-range': 'A duration is zero where that stops every run, or longer than its timer or a date can hold',
  // Webhooks
  'webhook-id': 'A webhook id is too short or has characters a URL segment cannot hold',
  'webhook-setting': 'A webhook lacks a setting its action needs',
  'webhook-sync-type': "A webhook's sync does not allow the webhook's kind of start",
  'webhook-paging': "A webhook's paging settings do not fit its query",
  'webhook-record-store': 'A webhook stores records for a sync that does not read the record store',
  'webhook-challenge': "A webhook's registration challenge lacks what its profile needs",
  'webhook-signature': "A webhook's signature check is incomplete",
  'webhook-idempotency': "A webhook's idempotency key is given in two ways",
  'token-plain-text': 'An API client token is written in plain text instead of as a secret reference or hash',
  // Connectors
  'invalid-template': "A connector's request template does not parse",
  'path-outside-directory': "A file object's path leads outside its System's directory",
  'invalid-path': 'A path holds a character no file system accepts',
  'format-unknown': "A file object's format cannot be told from its name",
  'columns-missing': 'A CSV file without a header row names no columns',
  'columns-with-header': 'A CSV file names columns and also reads them from its header',
  'csv-option': 'A CSV option on an object whose format is not CSV',
  'line-break': 'A CSV delimiter or quote is a line break',
  'delimiter-is-quote': 'A CSV delimiter and quote are the same character',
  'column-name-taken': 'A CSV column name is used twice',
  'column-missing': "A CSV file's columns lack a declared field",
  'queries-unsupported': 'The connector has no query language, so a System of it declares no queries',
  'archive-read-only': 'A file object archives what it read, but its System is read-only',
  // Warnings: the definitions load, but this is likely a mistake
  'first-without-order': 'firstOnly without a sort order answers whichever record comes first',
  'write-mapping-missing': 'saveWithSystem without writeMapping writes whatever a caller sends',
  'unusable-sort': 'A sort the system cannot send, so every order is made in memory',
  'setting-without-effect': 'A webhook setting its action does not use, so it is ignored',
  'no-write-operations': 'A writable object declares neither create nor update, so every write is refused',
};

/** The one-line description of a problem code, for a report's rule list. */
export function problemRule(code: string): string {
  return Object.hasOwn(descriptions, code) ? descriptions[code]! : `Definition problem '${code}'`;
}

/** Whether the catalogue names the code (for the test that keeps it complete). */
export function isDescribedCode(code: string): boolean {
  return Object.hasOwn(descriptions, code);
}
