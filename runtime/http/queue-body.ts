/**
 * The JSON bodies of AddAction and ExecuteProcess, checked whole before anything is enqueued or run:
 * every bad field is reported at once, each as `{path, message}` (a JSON pointer into the body).
 *
 * Property names are matched in any case (clients of the service differ in spelling, as routes do)
 * and answered in the seed's PascalCase; a property nobody reads is refused, so a misspelt
 * `WhereClause` cannot silently run a sync unfiltered. Optional properties may be null (what many
 * serializers send for "not set"). Values are data: they are stored in bound columns and never
 * become SQL or code.
 */
import type { ProblemDetail } from '../errors.js';
import { HttpProblem } from '../errors.js';
import { parseStartType, startTypes, valueLimits, type ActionParam, type StartType } from '../queue/queue-item.js';

/** What a start says beyond its process. */
export interface StartRequest {
  startType: StartType;
  sourceId?: string;
  whereClause?: string;
  actionParams?: ActionParam[];
}

export interface AddActionRequest extends StartRequest {
  processId: string;
}

/** ExecuteProcess runs a whole sync; AdHoc needs a source record, which only the ad-hoc routes and AddAction carry. */
export const executeStartTypes: readonly StartType[] = ['manual', 'repeat', 'planned', 'Single'];

export function parseAddActionBody(body: unknown): AddActionRequest {
  const errors: ProblemDetail[] = [];
  const fields = properties(body, ['ProcessId', 'StartType', 'SourceId', 'WhereClause', 'ActionParams'], '', errors);
  // A body that is no object has no fields to report on.
  fail(errors.filter((error) => error.path === ''));
  const processId = requiredText(fields.get('ProcessId'), '/ProcessId', valueLimits.processId, errors, 'the id of the sync or flow to start');
  const start = startFields(fields, startTypes, errors);
  const sourceId = optionalText(fields.get('SourceId'), '/SourceId', valueLimits.sourceId, errors);
  fail(errors);
  return { processId: processId!, ...start!, ...(sourceId === undefined ? {} : { sourceId }) };
}

export function parseExecuteProcessBody(body: unknown): StartRequest {
  const errors: ProblemDetail[] = [];
  const fields = properties(body, ['WhereClause', 'StartType', 'ActionParams'], '', errors);
  fail(errors.filter((error) => error.path === ''));
  const start = startFields(fields, executeStartTypes, errors);
  fail(errors);
  return start!;
}

function fail(errors: ProblemDetail[]): void {
  if (errors.length === 0) return;
  const summary = errors.length === 1 ? errors[0]!.message : `${errors.length} fields are not right: ${errors.map((e) => e.path || '(body)').join(', ')}.`;
  throw new HttpProblem('invalid-request', summary, { errors });
}

/** StartType, WhereClause and ActionParams, shared by both bodies. */
function startFields(fields: ReadonlyMap<string, unknown>, allowed: readonly StartType[], errors: ProblemDetail[]): StartRequest | undefined {
  const startType = parseStartTypeField(fields.get('StartType'), allowed, errors);
  const whereClause = optionalText(fields.get('WhereClause'), '/WhereClause', valueLimits.whereClause, errors, { emptyIsAbsent: true });
  const actionParams = parseActionParams(fields.get('ActionParams'), errors);
  if (startType === undefined) return undefined;
  return { startType, ...(whereClause === undefined ? {} : { whereClause }), ...(actionParams === undefined ? {} : { actionParams }) };
}

function parseStartTypeField(value: unknown, allowed: readonly StartType[], errors: ProblemDetail[]): StartType | undefined {
  const list = allowed.join(', ');
  if (value === undefined || value === null) {
    errors.push({ path: '/StartType', message: `StartType is required: one of ${list}.` });
    return undefined;
  }
  const parsed = typeof value === 'string' ? parseStartType(value) : undefined;
  if (parsed === undefined || !allowed.includes(parsed)) {
    const hint = parsed === 'AdHoc' ? ' AdHoc starts one source record: use StartProcessDirect/{syncId}/{sourceId}.' : '';
    errors.push({ path: '/StartType', message: `StartType ${JSON.stringify(value)} is not one of ${list} (any case).${hint}` });
    return undefined;
  }
  return parsed;
}

function parseActionParams(value: unknown, errors: ProblemDetail[]): ActionParam[] | undefined {
  if (value === undefined || value === null) return undefined;
  const shape = 'ActionParams must be an array of {"Name": string, "Value": string}';
  if (!Array.isArray(value)) {
    errors.push({ path: '/ActionParams', message: `${shape}.` });
    return undefined;
  }
  if (value.length > valueLimits.actionParams) {
    errors.push({ path: '/ActionParams', message: `ActionParams holds ${value.length} parameters; at most ${valueLimits.actionParams} are accepted.` });
    return undefined;
  }
  // A name given twice is allowed: the later value wins, as the sync engine reads them (action-params.ts).
  const params: ActionParam[] = [];
  value.forEach((item: unknown, index) => {
    const path = `/ActionParams/${index}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors.push({ path, message: `${shape}; item ${index} is ${describe(item)}.` });
      return;
    }
    const before = errors.length;
    const fields = properties(item, ['Name', 'Value'], path, errors);
    const name = requiredText(fields.get('Name'), `${path}/Name`, valueLimits.processId, errors, 'the parameter name');
    const text = fields.get('Value');
    if (text === undefined || text === null) errors.push({ path: `${path}/Value`, message: 'Value is required: a string.' });
    else if (typeof text !== 'string') errors.push({ path: `${path}/Value`, message: `Value must be a string, not ${describe(text)}${typeof text === 'number' || typeof text === 'boolean' ? ` (send ${JSON.stringify(String(text))})` : ''}.` });
    else if (text.length > valueLimits.actionParamValue) errors.push({ path: `${path}/Value`, message: `Value has ${text.length} characters; at most ${valueLimits.actionParamValue} are accepted.` });
    if (errors.length === before) params.push({ Name: name!, Value: text as string });
  });
  return params;
}

/**
 * The properties of a JSON object by their canonical names; reports a body that is no object,
 * properties nobody reads (naming the allowed ones) and one property given in two spellings.
 */
function properties(value: unknown, allowed: readonly string[], path: string, errors: ProblemDetail[]): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    errors.push({ path, message: `The body must be a JSON object with ${allowed.join(', ')}, not ${describe(value)}.` });
    return fields;
  }
  for (const [key, field] of Object.entries(value)) {
    const name = allowed.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    const at = `${path}/${escapePointer(key)}`;
    if (name === undefined) errors.push({ path: at, message: `Unknown property ${JSON.stringify(key)}; the properties are ${allowed.join(', ')}.` });
    else if (fields.has(name)) errors.push({ path: at, message: `${name} is given twice (in two spellings).` });
    else fields.set(name, field);
  }
  return fields;
}

function requiredText(value: unknown, path: string, limit: number, errors: ProblemDetail[], meaning: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (value === undefined || value === null) {
    errors.push({ path, message: `${name} is required: ${meaning}.` });
    return undefined;
  }
  return optionalText(value, path, limit, errors);
}

function optionalText(value: unknown, path: string, limit: number, errors: ProblemDetail[], options: { emptyIsAbsent?: boolean } = {}): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    errors.push({ path, message: `${name} must be a string, not ${describe(value)}.` });
    return undefined;
  }
  if (value.trim() === '') {
    // An empty filter means "no filter" to many clients; an empty id or name means nothing.
    if (options.emptyIsAbsent) return undefined;
    errors.push({ path, message: `${name} must not be empty.` });
    return undefined;
  }
  if (value.length > limit) {
    errors.push({ path, message: `${name} has ${value.length} characters; at most ${limit} are accepted.` });
    return undefined;
  }
  return value;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** RFC 6901: `~` and `/` in a property name. */
function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
