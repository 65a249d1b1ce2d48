/**
 * The WhereClause of a start: parsed with the expression parser and checked against the fields of
 * the sync's source, so the HTTP route can answer 400 before enqueueing, and the sync engine fails
 * a start whose WhereClause went bad (a reload changed the source) without retrying it.
 *
 * Allowed: fields of the source (an object's fields and typed group entries such as
 * `addresses.main.city`, a query's columns; any field of a record-store source, whose records have
 * no declared shape) and `#params.Name#` placeholders (the start's ActionParams). Any other
 * placeholder has no value a start could give, so it is refused rather than silently null. A
 * value where a condition belongs (`7`, the field `id`) is refused too: it would sync every record
 * whose value is not 0 or empty (value-as-condition.ts).
 */
import type { Snapshot, SyncEntry } from '../../definitions/snapshot.js';
import {
  collectFields,
  collectPlaceholders,
  ExpressionSyntaxError,
  parseExpression,
  valueAsCondition,
  valueAsConditionProblem,
  type Expression,
} from '../../definitions/expression/index.js';
import type { FieldType } from '../../definitions/types.js';
import { lineAndColumn } from '../../definitions/expression/syntax-error.js';

/** A WhereClause that cannot be used; `column` (1-based, on `line`) points at the problem. */
export class WhereClauseError extends Error {
  readonly offset: number;
  readonly line: number;
  readonly column: number;

  constructor(problem: string, text: string, offset: number, options: { cause?: unknown } = {}) {
    const { line, column } = lineAndColumn(text, offset);
    super(`WhereClause${line > 1 ? `, line ${line}` : ''}, column ${column}: ${problem}`, options);
    this.name = 'WhereClauseError';
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

/** The sync a start of `processId` reads with: the sync itself, or a flow's first sync (DESIGN §7). */
export function firstSyncOf(snapshot: Snapshot, processId: string, seen = new Set<string>()): SyncEntry | undefined {
  const sync = snapshot.syncs.get(processId);
  if (sync !== undefined) return sync;
  const flow = snapshot.flows.get(processId);
  const step = flow?.definition.steps[0];
  if (step === undefined || seen.has(processId)) return undefined;
  seen.add(processId);
  if (step.sync !== undefined) return snapshot.syncs.get(step.sync);
  return step.flow === undefined ? undefined : firstSyncOf(snapshot, step.flow, seen);
}

interface SourceShape {
  /** `crm/Customer`, `query crm/activeCustomers`: for messages. */
  owner: string;
  /** Its fields (a query's columns) with their declared types. */
  fields: ReadonlyMap<string, FieldType>;
  groups: ReadonlyMap<string, { types: readonly string[]; fields: ReadonlyMap<string, FieldType> }>;
}

function typesOf(fields: Readonly<Record<string, { type: FieldType }>>): Map<string, FieldType> {
  return new Map(Object.entries(fields).map(([name, field]) => [name, field.type]));
}

function sourceShape(snapshot: Snapshot, sync: SyncEntry): SourceShape | undefined {
  const source = sync.definition.source;
  if (source.recordStore || source.system === undefined) return undefined;
  const system = snapshot.systems.get(source.system)?.definition;
  if (source.query !== undefined) {
    const query = system?.queries[source.query];
    return {
      owner: `query ${source.system}/${source.query}`,
      fields: new Map(query?.columns.map((column) => [column.name, column.type]) ?? []),
      groups: new Map(),
    };
  }
  const object = source.object === undefined ? undefined : system?.objects[source.object];
  const groups = new Map(
    Object.entries(object?.groups ?? {}).map(([name, group]) => [name, { types: group.types, fields: typesOf(group.fields) }]),
  );
  return { owner: `${source.system}/${source.object}`, fields: typesOf(object?.fields ?? {}), groups };
}

/** The declared type of the field `path` names (`name`, `group.type.field`); undefined for one the source lacks. */
function fieldType(shape: SourceShape, path: readonly string[]): FieldType | undefined {
  const [first, type, member] = path;
  if (path.length === 1) return shape.fields.get(first!);
  const group = path.length === 3 ? shape.groups.get(first!) : undefined;
  return group?.types.includes(type!) ? group.fields.get(member!) : undefined;
}

/** Why `path` is not a field of the source, or undefined when it is. */
function fieldProblem(shape: SourceShape, path: readonly string[]): string | undefined {
  if (fieldType(shape, path) !== undefined) return undefined;
  const first = path[0]!;
  const group = shape.groups.get(first);
  if (group !== undefined) {
    return `'${path.join('.')}' is not an entry of group ${first}; write ${first}.<type>.<field> with a type of ${group.types.join(', ')} and a field of ${[...group.fields.keys()].join(', ')}`;
  }
  return `${shape.owner} has no field '${path.join('.')}'; its fields are ${[...shape.fields.keys()].join(', ') || 'none'}`;
}

/**
 * Parses and checks the WhereClause of a start of `processId` (a sync, or a flow whose first sync
 * gets it). Throws WhereClauseError for text that does not parse or names what the source lacks;
 * a plain Error when `processId` names no sync or flow.
 */
export function parseWhereClause(snapshot: Snapshot, processId: string, text: string): Expression {
  const sync = firstSyncOf(snapshot, processId);
  if (sync === undefined) throw new Error(`there is no sync or flow '${processId}' (or the flow has no sync to start with)`);
  let ast: Expression;
  try {
    ast = parseExpression(text);
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) throw new WhereClauseError(error.message, text, error.offset, { cause: error });
    throw error;
  }
  for (const placeholder of collectPlaceholders(ast)) {
    if (placeholder.path[0] !== 'params' || placeholder.path.length !== 2) {
      throw new WhereClauseError(
        `#${placeholder.path.join('.')}# has no value here; a WhereClause may use only #params.Name# (an ActionParam)`,
        text,
        placeholder.start,
      );
    }
  }
  const shape = sourceShape(snapshot, sync);
  if (shape !== undefined) {
    for (const field of collectFields(ast)) {
      const problem = fieldProblem(shape, field.path);
      if (problem !== undefined) throw new WhereClauseError(problem, text, field.start);
    }
  }
  const typeOf = (path: readonly string[]) => (shape === undefined ? undefined : fieldType(shape, path));
  const value = valueAsCondition(ast, typeOf);
  if (value !== undefined) throw new WhereClauseError(valueAsConditionProblem(value, typeOf), text, value.start);
  return ast;
}
