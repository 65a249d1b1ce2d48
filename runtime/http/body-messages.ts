/**
 * Ajv's findings on a request body, said the way a caller can act on them: each as `{path,
 * message}` with the path a JSON pointer to the field itself (a missing or unknown property
 * included), the message naming the field and what it takes — read from the same schema ajv
 * checked, so the words cannot drift from the rule. Ajv's own messages ("must have required
 * property 'StartType'") name neither the allowed values nor the fix.
 *
 * One finding per field, in the order the schema declares its properties (unknown ones first, as
 * they are often the misspelling behind a missing one).
 */
import type { ErrorObject } from 'ajv';
import type { ProblemDetail } from '../errors.js';
import { escapePointer } from '../request/json-pointer.js';

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema is walked by keyword, and a keyword's value may be any JSON.
type Schema = Record<string, any>;

/** A finding with the rule it broke: ajv's keyword, or `twice` for a property given in two spellings. */
export interface BodyProblem extends ProblemDetail {
  keyword: string;
}

/** The pattern of a text that must hold more than spaces: its finding reads "must not be empty". */
export const notBlank = '\\S';

export function bodyProblems(errors: readonly ErrorObject[], root: Schema): BodyProblem[] {
  const found = new Map<string, BodyProblem>();
  for (const error of errors) {
    const detail = describeError(error);
    if (!found.has(detail.path)) found.set(detail.path, detail);
  }
  return sortBySchema([...found.values()], root);
}

/** The findings in schema order: at each level unknown properties first, then declared ones as declared, items by index. */
export function sortBySchema<P extends ProblemDetail>(problems: P[], root: Schema): P[] {
  const rank = (path: string): number[] => {
    let schema: Schema | undefined = root;
    return pointerSegments(path).map((segment) => {
      if (schema?.properties) {
        const names = Object.keys(schema.properties);
        const index = names.findIndex((name) => name.toLowerCase() === segment.toLowerCase());
        schema = index < 0 ? undefined : schema.properties[names[index]!];
        return index;
      }
      schema = schema?.items;
      return Number(segment);
    });
  };
  const compare = (a: number[], b: number[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  };
  return problems
    .map((problem) => ({ problem, rank: rank(problem.path) }))
    .sort((a, b) => compare(a.rank, b.rank))
    .map((entry) => entry.problem);
}

function describeError(error: ErrorObject): BodyProblem {
  const parent = (error.parentSchema ?? {}) as Schema;
  const keyword = error.keyword;
  const data = error.data;
  switch (error.keyword) {
    case 'required': {
      const property = String(error.params.missingProperty);
      const path = `${error.instancePath}/${escapePointer(property)}`;
      return { path, keyword, message: `${property} is required: ${meaning(parent.properties?.[property] ?? {})}.` };
    }
    case 'additionalProperties': {
      const property = String(error.params.additionalProperty);
      const allowed = Object.keys(parent.properties ?? {});
      return {
        path: `${error.instancePath}/${escapePointer(property)}`,
        keyword,
        message: `Unknown property ${JSON.stringify(property)}; the properties are ${allowed.join(', ')}.`,
      };
    }
    default:
      return { path: error.instancePath, keyword, message: valueMessage(error, nameOf(error.instancePath), parent, data) };
  }
}

function valueMessage(error: ErrorObject, name: string, schema: Schema, data: unknown): string {
  switch (error.keyword) {
    case 'type': {
      // A number or boolean where text is wanted is the commonest slip of a typed client: say the fix.
      const textWanted = (typeof data === 'number' || typeof data === 'boolean') && typesOf(schema).includes('string');
      // (A whole number past 2^53 never gets here: the body's text is refused first, read-body.ts.)
      const send = textWanted ? ` (send ${JSON.stringify(String(data))})` : '';
      return `${name} must be ${shape(schema)}, not ${describe(data)}${send}.`;
    }
    case 'enum':
      return `${name} ${JSON.stringify(data)} is not one of ${(schema.enum as unknown[]).join(', ')} (any case).`;
    case 'maxLength':
      // Ajv counts characters (code points), not UTF-16 units: so does the message.
      return `${name} has ${[...(data as string)].length} characters; at most ${schema.maxLength} are accepted.`;
    case 'maxItems':
      return entriesMessage(name, (data as unknown[]).length, schema.maxItems as number);
    case 'minItems':
      return `${name} must be a non-empty ${shape(schema).replace(/^an? /, '')}.`;
    case 'pattern':
      return schema.pattern === notBlank
        ? `${name} must not be empty.`
        : `${name} ${JSON.stringify(data)} does not have the form ${schema.pattern}.`;
    case 'minimum':
      return `${name} must be at least ${schema.minimum}, not ${JSON.stringify(data)}.`;
    default:
      return `${name} ${error.message ?? 'is not valid'}.`;
  }
}

/** What a value of `schema` is, for "X is required: …": its title, its allowed values, or its shape. */
function meaning(schema: Schema): string {
  if (typeof schema.title === 'string') return schema.title;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.join(', ')}`;
  return shape(schema);
}

/** `a string`, `an array of {"Name": string, "Value": string}`, `a JSON object with ProcessId, StartType`. */
function shape(schema: Schema, root = true): string {
  const types = typesOf(schema).filter((type) => type !== 'null');
  const type = types[0];
  if (type === 'array') return `${root ? 'an ' : ''}array of ${schema.items ? shape(schema.items, false) : 'values'}`;
  if (type === 'object' && schema.properties) {
    const fields = Object.entries(schema.properties as Record<string, Schema>).map(
      ([field, sub]) => `${JSON.stringify(field)}: ${shape(sub, false).replace(/^an? /, '')}`,
    );
    return root ? `a JSON object with ${Object.keys(schema.properties).join(', ')}` : `{${fields.join(', ')}}`;
  }
  // An open object says in its title what it holds (the minimal write's field names).
  if (type === 'object' && typeof schema.title === 'string') return schema.title;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.join(', ')}`;
  if (type === undefined) return 'any';
  const article = /^[aeiou]/.test(type) ? 'an' : 'a';
  return `${root ? `${article} ` : ''}${type === 'integer' ? 'whole number' : type}`;
}

function typesOf(schema: Schema): string[] {
  return schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** The field a path names, for a message: `StartType`, `Item 1 of ActionParams`, `The body`. */
function entriesMessage(name: string, count: number, most: number): string {
  return `${name} holds ${count} entries; at most ${most} are accepted.`;
}

/** An array at `path` past its schema's maxItems, found before ajv looks at its entries (body-schema.ts). */
export function tooManyEntries(path: string, count: number, most: number): BodyProblem {
  return { path, keyword: 'maxItems', message: entriesMessage(nameOf(path), count, most) };
}

function nameOf(path: string): string {
  const segments = pointerSegments(path);
  const last = segments.at(-1);
  if (last === undefined) return 'The body';
  if (/^\d+$/.test(last)) return `Item ${last} of ${segments.at(-2) ?? 'the body'}`;
  return last;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function pointerSegments(path: string): string[] {
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}
