/**
 * A route's request body, declared once as a JSON Schema: ajv checks bodies against it and the
 * interface description (openapi/) publishes the same object.
 *
 * Before ajv sees a body it is normalised along the schema, as the service has always read
 * bodies: property names are matched in any case (clients of the service differ in spelling, as
 * routes do) and answered in the schema's spelling — the seed's PascalCase; so are the strings of
 * an `enum` (StartType `MANUAL` is `manual`). One property given in two spellings is refused. A
 * null where the schema takes no null counts as absent, which is what many serializers send for
 * "not set"; a required property sent as null is then missing, and said so.
 *
 * Every finding is reported at once: a 400 invalid-request whose `errors` hold one `{path,
 * message}` per bad field (body-messages.ts), the first MAX_LISTED of them. Every array a body
 * schema declares has a maxItems, and an array past it — or more unknown properties than an answer
 * lists — is refused in one finding before ajv sees the body: ajv (allErrors) would look at each of
 * 70,000 entries and make a finding of each, seconds of work and an answer of megabytes for 200 KB
 * sent.
 */
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../../definitions/schema/validators.js';
import { deepFreeze } from '../../definitions/snapshot.js';
import { HttpProblem, type ProblemCode } from '../errors.js';
import { bodyProblems, sortBySchema, tooManyEntries, type BodyProblem } from './body-messages.js';
import { escapePointer, valueAt } from '../request/json-pointer.js';

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema is walked by keyword, and a keyword's value may be any JSON.
export type BodySchema = Record<string, any>;

const ajv = createAjv({ useDefaults: false, allowUnionTypes: true });

/** A finding as the schema words it, with what the body holds at its path. */
export interface Finding {
  path: string;
  message: string;
  /** The rule broken: ajv's keyword (`required`, `enum`, `type`, …), or `twice` for one property in two spellings. */
  keyword: string;
  /** The value at `path` (undefined for a missing property). */
  value: unknown;
  /** The whole body, normalised. */
  body: unknown;
}

export interface BodyOptions {
  /** The message of a finding where the route can say more than the schema (the fix, another route); default its own. */
  message?: (finding: Finding) => string;
  /** The problem code of the answer; default invalid-request. */
  code?: (findings: readonly Finding[]) => ProblemCode;
}

export interface RequestBody<T> {
  /** The schema, frozen: what the interface description shows. */
  readonly schema: BodySchema;
  /** The body normalised and checked; throws HttpProblem invalid-request listing every bad field. */
  parse(body: unknown): T;
}

export function requestBody<T>(schema: BodySchema, options: BodyOptions = {}): RequestBody<T> {
  const frozen = deepFreeze(schema);
  const validate: ValidateFunction = ajv.compile(frozen);
  return {
    schema: frozen,
    parse(body) {
      const oversized = oversizedPart(frozen, body);
      if (oversized !== undefined) throw invalidBody([oversized], body, options);
      const problems: BodyProblem[] = [];
      const normalised = normalise(frozen, body, '', problems);
      if (!validate(normalised)) for (const problem of bodyProblems(validate.errors ?? [], frozen)) problems.push(problem);
      if (problems.length > 0) throw invalidBody(sortBySchema(problems, frozen), normalised, options);
      return normalised as T;
    },
  };
}

/** Most findings one answer lists; the summary counts them all. */
export const MAX_LISTED = 50;

function invalidBody(problems: BodyProblem[], body: unknown, options: BodyOptions): HttpProblem {
  const findings: Finding[] = problems.slice(0, MAX_LISTED).map((problem) => ({ ...problem, value: valueAt(body, problem.path), body }));
  const errors = findings.map((finding) => ({ path: finding.path, message: options.message ? options.message(finding) : finding.message }));
  const more = problems.length > errors.length ? ` and ${problems.length - errors.length} more` : '';
  const summary =
    problems.length === 1
      ? errors[0]!.message
      : `${problems.length} fields are not right: ${errors.map((e) => e.path || '(body)').join(', ')}${more}.`;
  return new HttpProblem(options.code?.(findings) ?? 'invalid-request', summary, { errors });
}

/**
 * What ajv would spend per entry on, refused first in one finding: an array with more entries than
 * its schema's maxItems, or more unknown properties (where the schema takes none) than an answer
 * lists — 80,000 of them in 870 KB made as many findings, half a second of the event loop.
 */
function oversizedPart(schema: BodySchema, body: unknown): BodyProblem | undefined {
  const unknown = { count: 0, first: undefined as string | undefined };
  const tooLong = longArray(schema, body, '', unknown);
  if (tooLong !== undefined) return tooLong;
  if (unknown.count <= MAX_LISTED) return undefined;
  const message = `The body holds ${unknown.count} properties its route does not read (the first at ${unknown.first}); send only the properties the route describes.`;
  return { path: unknown.first!, keyword: 'additionalProperties', message };
}

/**
 * The first array of `value` that holds more entries than its schema's maxItems, looked for along
 * the schema (properties matched in any case and named in its spelling, as normalise does);
 * undefined when none does. Counts the properties of objects whose schema takes no others.
 */
function longArray(
  schema: BodySchema | undefined,
  value: unknown,
  path: string,
  unknown: { count: number; first: string | undefined },
): BodyProblem | undefined {
  if (schema === undefined || typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return tooManyEntries(path, value.length, schema.maxItems);
    if (schema.items === undefined) return undefined;
    for (let index = 0; index < value.length; index += 1) {
      const found = longArray(schema.items, value[index], `${path}/${index}`, unknown);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!schema.properties) return undefined;
  const declared = Object.keys(schema.properties);
  for (const [key, field] of Object.entries(value)) {
    const name = declaredName(declared, key);
    if (name === undefined) {
      if (schema.additionalProperties === false && unknown.count++ === 0) unknown.first = `${path}/${escapePointer(key)}`;
      continue;
    }
    const found = longArray(schema.properties[name], field, `${path}/${escapePointer(name)}`, unknown);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The declared property `key` names in any case, in the schema's spelling; undefined for an unknown one. */
function declaredName(declared: readonly string[], key: string): string | undefined {
  const lower = key.toLowerCase();
  return declared.find((candidate) => candidate.toLowerCase() === lower);
}

/** `value` with property names and enum strings in the schema's spelling, and nulls the schema takes not as absent. */
function normalise(schema: BodySchema | undefined, value: unknown, path: string, problems: BodyProblem[]): unknown {
  if (schema === undefined) return value;
  if (typeof value === 'string' && Array.isArray(schema.enum)) {
    return schema.enum.find((allowed: unknown) => typeof allowed === 'string' && allowed.toLowerCase() === value.toLowerCase()) ?? value;
  }
  if (Array.isArray(value))
    return schema.items ? value.map((item, index) => normalise(schema.items, item, `${path}/${index}`, problems)) : value;
  if (typeof value !== 'object' || value === null || !schema.properties) return value;
  const declared = Object.keys(schema.properties);
  const result: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const at = `${path}/${escapePointer(key)}`;
    const name = declaredName(declared, key);
    if (name === undefined) {
      // Unknown: left for additionalProperties to name. defineProperty, so a key "__proto__" stays a key.
      Object.defineProperty(result, key, { value: field, enumerable: true, writable: true, configurable: true });
    } else if (Object.hasOwn(result, name)) {
      problems.push({ path: at, keyword: 'twice', message: `${name} is given twice (in two spellings).` });
    } else if (!(field === null && !takesNull(schema.properties[name]))) {
      result[name] = normalise(schema.properties[name], field, at, problems);
    }
  }
  return result;
}

function takesNull(schema: BodySchema): boolean {
  if (schema.type === undefined) return schema.enum === undefined || schema.enum.includes(null);
  return schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'));
}
