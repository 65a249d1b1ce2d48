/**
 * Turns Ajv errors into problems a person can act on: the place (the YAML key or value the error is
 * about, by line and column), what is wrong, and the fix ("did you mean onNoMatch?", the allowed
 * values). Noise that Ajv reports alongside the real error (if/then wrappers, the branch errors of
 * an anyOf) is folded into one line.
 */
import type { ErrorObject } from 'ajv';
import type { Problem } from '../problem.js';
import { isScalar } from 'yaml';
import { locate, problemAt, type PathSegment, type SourceDocument } from '../load/source-document.js';
import { closest } from './did-you-mean.js';

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema is walked by keyword, and a keyword's value may be any JSON.
type SchemaValue = Record<string, any>;

export function schemaProblems(source: SourceDocument, errors: readonly ErrorObject[]): Problem[] {
  const anyOfPaths = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.schemaPath);
  const inBranch = (error: ErrorObject, anyOf: string) => error.schemaPath !== anyOf && error.schemaPath.startsWith(`${anyOf}/`);
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    // A name's own pattern error is summarised by the propertyNames error, which points at the name.
    if (error.schemaPath.includes('/propertyNames/')) continue;
    // Errors inside an anyOf branch are summarised by the anyOf error itself…
    if (anyOfPaths.some((p) => inBranch(error, p))) continue;
    // …unless a branch (often behind a $ref) lists the allowed words for this very value: that
    // list is the fix, and "not an allowed form" would only repeat it less helpfully.
    const isAnyOf = error.keyword === 'anyOf' || error.keyword === 'oneOf';
    if (isAnyOf && errors.some((e) => e.keyword === 'enum' && e.instancePath === error.instancePath)) continue;
    const problem = toProblem(source, error);
    const key = `${problem.line}:${problem.column}:${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}

export function instancePathSegments(pointer: string): PathSegment[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `source.system`, `steps[0].sync`, `objects.Customer` — the path as a reader of the YAML sees it. */
export function displayPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number' || /^\d+$/.test(String(segment))) out += `[${segment}]`;
    else out += out ? `.${segment}` : String(segment);
  }
  return out;
}

function toProblem(source: SourceDocument, error: ErrorObject): Problem {
  const path = instancePathSegments(error.instancePath);
  const where = displayPath(path);
  const prefix = where ? `${where}: ` : '';
  const params = error.params as SchemaValue;
  const parent = (error.parentSchema ?? {}) as SchemaValue;
  const schema = error.schema as SchemaValue;
  // A substituted value is where secrets live: name where it came from instead of printing it. A
  // value written into the file under a secret's name, or a URL's password, is not printed either:
  // problems go to CI logs and to the console's clients, who need not read the file.
  const secret = substitutedFrom(source, path) ?? literalSecret(path, error.data);
  const quoted = (value: unknown) => secret ?? `'${String(value)}'`;
  const described = (value: unknown) => secret ?? describe(value);
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const inWhat = where ? `${where}` : 'the definition';
      return problemAt(source, path, 'schema-required', `${inWhat} is missing required property '${missing}'`, { key: path.length > 0 });
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const known = Object.keys(parent.properties ?? {});
      const guess = closest(extra, known);
      const hint = guess ? `did you mean '${guess}'?` : `allowed: ${known.join(', ')}`;
      return problemAt(source, [...path, extra], 'schema-unknown-property', `${prefix}unknown property '${extra}'; ${hint}`, { key: true });
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const guess = typeof error.data === 'string' && !secret ? closest(error.data, allowed) : undefined;
      const hint = guess ? ` — did you mean '${guess}'?` : '';
      return problemAt(
        source,
        path,
        'schema-enum',
        `${prefix}${quoted(error.data)} is not allowed; use one of: ${allowed.join(', ')}${hint}`,
      );
    }
    case 'const':
      return problemAt(source, path, 'schema-const', `${prefix}must be '${String(params.allowedValue)}'`);
    case 'type':
      return problemAt(
        source,
        path,
        'schema-type',
        `${prefix}must be ${article(String(params.type))}, not ${described(error.data)}${emptiedByComment(source, path, error.data)}`,
      );
    case 'pattern': {
      const expected =
        typeof parent.description === 'string'
          ? `expected ${lowerFirst(parent.description).replace(/\.$/, '')}`
          : `it must match ${String(params.pattern)}`;
      return problemAt(source, path, 'schema-pattern', `${prefix}${quoted(error.data)} has the wrong form; ${expected}`);
    }
    case 'anyOf':
    case 'oneOf': {
      const branches = Array.isArray(schema) ? (schema as Array<Record<string, unknown>>) : [];
      if (branches.length > 0 && branches.every((b) => Array.isArray(b.required) && Object.keys(b).length === 1)) {
        // A oneOf of required keys also fails when more than one is given: name those.
        const passing = Array.isArray(params.passingSchemas) ? (params.passingSchemas as number[]) : [];
        if (error.keyword === 'oneOf' && passing.length > 1) {
          const given = passing.map((i) => (branches[i]!.required as string[]).join(' and '));
          return problemAt(
            source,
            [...path, (branches[passing[1]!]!.required as string[])[0]!],
            'schema-exclusive',
            `${prefix}has ${given.join(' and ')}; give only one of them`,
            { key: true },
          );
        }
        const options = branches.map((b) => (b.required as string[]).join(' and ')).join(', or ');
        return problemAt(source, path, 'schema-required', `${prefix}needs ${options}`, { key: path.length > 0 });
      }
      const description = typeof parent.description === 'string' ? `: ${parent.description}` : '';
      return problemAt(source, path, 'schema-form', `${prefix}${described(error.data)} is not an allowed form${description}`);
    }
    case 'minItems':
      return problemAt(source, path, 'schema-range', `${prefix}needs at least ${params.limit} item${params.limit === 1 ? '' : 's'}`);
    case 'minProperties':
      return problemAt(source, path, 'schema-range', `${prefix}needs at least ${params.limit} entr${params.limit === 1 ? 'y' : 'ies'}`);
    case 'minLength':
      return problemAt(source, path, 'schema-range', `${prefix}must be at least ${params.limit} characters long`);
    case 'maxLength':
      return problemAt(source, path, 'schema-range', `${prefix}must be at most ${params.limit} characters long`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return problemAt(source, path, 'schema-range', `${prefix}${secret ?? String(error.data)} is out of range: ${error.message}`);
    case 'uniqueItems':
      return problemAt(source, path, 'schema-unique', `${prefix}items ${params.j} and ${params.i} are the same; list each once`);
    case 'propertyNames': {
      const name = String(params.propertyName);
      const message = `${prefix}'${name}' is not a valid name (${allowedNames(schema?.pattern)})`;
      return problemAt(source, [...path, name], 'schema-name', message, { key: true });
    }
    case 'format':
      return problemAt(source, path, 'schema-format', `${prefix}${quoted(error.data)} is not a valid ${params.format}`);
    default:
      return problemAt(source, path, 'schema', `${prefix}${error.message ?? 'is invalid'}`);
  }
}

/** The names a propertyNames pattern of the schemas allows, in words. */
function allowedNames(pattern: unknown): string {
  if (pattern === '^[A-Za-z_][A-Za-z0-9_]*$') return "letters, digits and '_', not starting with a digit";
  if (pattern === '^[A-Za-z_][A-Za-z0-9_-]*$') return "letters, digits, '_' and '-', starting with a letter or '_'";
  return `it must match ${String(pattern)}`;
}

/**
 * `condition: #status# <> 'draft'` is a key with no value followed by a comment: YAML reads null.
 * Say so, since the reader sees a value on that line.
 */
function emptiedByComment(source: SourceDocument, path: readonly PathSegment[], data: unknown): string {
  const last = path[path.length - 1];
  if (data !== null || last === undefined || typeof last === 'number') return '';
  const { node, complete } = locate(source, path);
  if (!complete || !isScalar(node) || node.source !== '' || !node.range) return '';
  const lineStart = source.text.lastIndexOf('\n', node.range[0] - 1) + 1;
  const lineEnd = source.text.indexOf('\n', node.range[0]);
  const rest = source.text.slice(node.range[0], lineEnd < 0 ? undefined : lineEnd);
  const onKeyLine = source.text.slice(lineStart, node.range[0]).includes(`${String(last)}:`);
  return onKeyLine && rest.startsWith('#')
    ? ` (in YAML ' #' starts a comment, so everything after '${String(last)}:' was read as a comment: put the value in quotes)`
    : '';
}

function substitutedFrom(source: SourceDocument, path: readonly PathSegment[]): string | undefined {
  const { node, complete } = locate(source, path);
  if (!complete || !node || !source.substituted.has(node) || !node.range) return undefined;
  return `the value of ${source.text.slice(node.range[0], node.range[1]).trim()}`;
}

/** Names of properties that hold secrets: password, token, secret, clientSecret, apiKey, privateKey… (not tokenUrl). */
const secretName = /(password|passphrase|secret|token|api_?key|private_?key|credentials?)$/i;

/**
 * How a problem names a secret written literally in the file: a value under a secret's name by its
 * type ("the number given"), a URL with a password as that URL with the password starred.
 */
function literalSecret(path: readonly PathSegment[], value: unknown): string | undefined {
  const name = [...path].reverse().find((segment): segment is string => typeof segment === 'string');
  if (name !== undefined && secretName.test(name)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value === 'object' ? 'mapping' : typeof value;
    return `the ${kind} given`;
  }
  if (typeof value !== 'string') return undefined;
  const withPassword = /^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:)[^@\s]*@/i.exec(value);
  return withPassword === null ? undefined : `'${withPassword[1]}***@${value.slice(withPassword[0].length)}'`;
}

/** "PostgreSQL or …" keeps its capital; "A name …" becomes "a name …". */
function lowerFirst(text: string): string {
  const firstWord = /^\S*/.exec(text)![0];
  return /[A-Z]/.test(firstWord.slice(1)) ? text : `${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the string '${value.length > 40 ? `${value.slice(0, 40)}…` : value}'`;
  return `${typeof value} ${String(value)}`;
}
