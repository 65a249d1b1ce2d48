/**
 * Shared machinery of the semantic checks: the definitions by kind, problem reporting at YAML
 * positions, reference resolution with suggestions, and compiling expressions, orders and JSONata
 * while reporting exactly where they break.
 */
import type { Expression as Mapping } from 'jsonata';
import { isScalar } from 'yaml';
import { ExpressionSyntaxError, parseExpression, type Expression } from '../expression/index.js';
import { slowRegexes } from '../mapping/slow-regexes.js';
import { compileMapping } from '../mapping/compile-mapping.js';
import { duplicateKeys } from '../mapping/duplicate-keys.js';
import { unknownFunctionCalls, unknownFunctionMessage } from '../mapping/unknown-functions.js';
import { OrderSyntaxError, parseOrder, type OrderTerm } from '../order/parse-order.js';
import { problemAt, locate, type PathSegment, type SourceDocument } from '../load/source-document.js';
import { isError, type Problem } from '../problem.js';
import { closest } from '../schema/did-you-mean.js';
import { displayPath } from '../schema/schema-problems.js';
import type {
  ApiClientDefinition,
  DefinitionKind,
  FlowDefinition,
  FieldDefinition,
  ObjectDefinition,
  SyncDefinition,
  SystemDefinition,
  WebhookDefinition,
} from '../types.js';

export interface Registered<T> {
  readonly definition: T;
  readonly source: SourceDocument;
  /** False when the document failed its schema: it exists for references, but is not checked further. */
  readonly valid: boolean;
}

interface ByKind {
  System: SystemDefinition;
  Sync: SyncDefinition;
  Webhook: WebhookDefinition;
  Flow: FlowDefinition;
  ApiClient: ApiClientDefinition;
}

export class CheckContext {
  readonly problems: Problem[] = [];
  readonly registry: { [K in DefinitionKind]: Map<string, Registered<ByKind[K]>> } = {
    System: new Map(),
    Sync: new Map(),
    Webhook: new Map(),
    Flow: new Map(),
    ApiClient: new Map(),
  };
  /**
   * `Kind/id` of definitions that exist but could not be read (broken YAML, a failed
   * substitution). Their own problems are reported; a reference to one is not "unknown" as well.
   */
  readonly unreadable = new Set<string>();

  report(
    source: SourceDocument,
    path: readonly PathSegment[],
    code: string,
    message: string,
    options: { key?: boolean; offsetInValue?: number } = {},
  ): void {
    this.problems.push(problemAt(source, path, code, message, options));
  }

  /** A warning: reported, and the definitions still load (problem.ts). */
  warn(
    source: SourceDocument,
    path: readonly PathSegment[],
    code: string,
    message: string,
    options: { key?: boolean; offsetInValue?: number } = {},
  ): void {
    this.problems.push({ ...problemAt(source, path, code, message, options), severity: 'warning' });
  }

  /** Errors among `problems[0, counted)`: problems are only ever appended, so each is looked at once. */
  private counted = 0;
  private errorsCounted = 0;

  /**
   * Errors so far: a check compares counts before and after to know whether its definition is
   * usable. Asked after every definition, so it counts only what was added since it was last asked
   * (counting all each time made a set of 30,000 definitions take 29 s).
   */
  get errors(): number {
    for (; this.counted < this.problems.length; this.counted += 1) if (isError(this.problems[this.counted]!)) this.errorsCounted += 1;
    return this.errorsCounted;
  }

  /** Whether the user wrote `path` (as opposed to a default filled in by the schema). */
  written(source: SourceDocument, path: readonly PathSegment[]): boolean {
    return locate(source, path).complete;
  }

  /**
   * The definition `id` of `kind` when it passed its schema, for the checks that look inside it.
   * One that failed has its own problems reported already; whatever refers to it is not checked
   * against its parts, which may be missing or of any type.
   */
  usable<K extends DefinitionKind>(kind: K, id: string | undefined): Registered<ByKind[K]> | undefined {
    const found = id === undefined ? undefined : this.registry[kind].get(id);
    return found?.valid ? found : undefined;
  }

  /**
   * The definition `id` of `kind`, if it passed its schema (see `usable`); a problem at `path`
   * naming the ones that exist when there is none of that id.
   */
  resolve<K extends DefinitionKind>(
    kind: K,
    id: string,
    source: SourceDocument,
    path: readonly PathSegment[],
  ): Registered<ByKind[K]> | undefined {
    const found = this.registry[kind].get(id);
    if (found) return found.valid ? found : undefined;
    if (this.unreadable.has(`${kind}/${id}`)) return undefined;
    const known = [...this.registry[kind].keys()].sort();
    const guess = closest(id, known);
    const hint = guess ? `; did you mean '${guess}'?` : known.length ? ` (defined: ${list(known)})` : ` (no ${kind} is defined)`;
    this.report(source, path, 'unknown-reference', `${displayPath(path)}: unknown ${kind} '${id}'${hint}`);
    return undefined;
  }

  /** The object `name` of a system, or a problem naming the system's objects. */
  object(
    system: Registered<SystemDefinition>,
    name: string,
    source: SourceDocument,
    path: readonly PathSegment[],
  ): ObjectDefinition | undefined {
    const objects = system.definition.objects ?? {};
    const found = Object.hasOwn(objects, name) ? objects[name] : undefined;
    if (found) return found;
    const known = Object.keys(objects);
    const guess = closest(name, known);
    const hint = guess ? `; did you mean '${guess}'?` : known.length ? ` (it has: ${list(known)})` : ' (it declares no objects)';
    this.report(source, path, 'unknown-reference', `${displayPath(path)}: System '${system.definition.id}' has no object '${name}'${hint}`);
    return undefined;
  }

  expression(source: SourceDocument, path: readonly PathSegment[], text: string): Expression | undefined {
    try {
      return parseExpression(text);
    } catch (error) {
      if (!(error instanceof ExpressionSyntaxError)) throw error;
      this.report(source, path, 'expression-syntax', `${displayPath(path)}: ${error.message}${commentHint(source, path)}`, {
        offsetInValue: error.offset,
      });
      return undefined;
    }
  }

  order(source: SourceDocument, path: readonly PathSegment[], text: string): OrderTerm[] | undefined {
    try {
      return parseOrder(text);
    } catch (error) {
      if (!(error instanceof OrderSyntaxError)) throw error;
      this.report(source, path, 'order-syntax', `${displayPath(path)}: ${error.message}`, { offsetInValue: error.offset });
      return undefined;
    }
  }

  /** JSONata's expression, with compiled closures in front where the mapping allows (definitions/mapping). */
  mapping(source: SourceDocument, path: readonly PathSegment[], text: string): Mapping | undefined {
    try {
      const mapping = compileMapping(text);
      for (const call of unknownFunctionCalls(mapping.ast())) {
        this.report(source, path, 'unknown-function', unknownFunctionMessage(displayPath(path), call), { offsetInValue: call.start });
      }
      for (const regex of slowRegexes(mapping.ast(), text)) {
        this.report(
          source,
          path,
          'slow-regex',
          `${displayPath(path)}: the regular expression repeats ${regex.part}, a group whose every part repeats, so some inputs take exponential time, and nothing else of the process runs meanwhile; repeat the inner part once or give each repetition a required character`,
          { offsetInValue: regex.start },
        );
      }
      for (const key of duplicateKeys(mapping.ast(), text)) {
        this.report(
          source,
          path,
          'duplicate-mapping-key',
          `${displayPath(path)}: '${key.name}' is given twice in one object; JSONata refuses the object whenever it is built ("Multiple key definitions evaluate to same key"), which fails every record it maps: keep one`,
          { offsetInValue: key.start },
        );
      }
      return mapping;
    } catch (error) {
      const e = error as { message?: string; position?: number; token?: string };
      // JSONata reports the position just after the offending token.
      const offset = typeof e.position === 'number' ? Math.max(0, e.position - (e.token?.length ?? 1)) : 0;
      this.report(source, path, 'jsonata-syntax', `${displayPath(path)}: JSONata: ${e.message ?? String(error)}`, {
        offsetInValue: offset,
      });
      return undefined;
    }
  }

  /**
   * Reports field paths of an expression or order that the object does not declare. A path is
   * `field`, or `group.field` for a typed object group.
   */
  fields(
    source: SourceDocument,
    path: readonly PathSegment[],
    fields: ReadonlyArray<{ path: readonly string[]; start: number }>,
    owner: string,
    shape: FieldShape,
    severity: 'error' | 'warning' = 'error',
  ): void {
    for (const field of fields) {
      const problem = unknownField(field.path, shape);
      if (!problem) continue;
      const message = `${displayPath(path)}: ${owner} ${problem}`;
      if (severity === 'warning') this.warn(source, path, 'unknown-field', message, { offsetInValue: field.start });
      else this.report(source, path, 'unknown-field', message, { offsetInValue: field.start });
    }
  }
}

/**
 * In YAML, ' #' starts a comment, so an unquoted `Email = #Email#` arrives as `Email =`. When a
 * broken expression is a plain scalar followed by a comment, say so.
 */
function commentHint(source: SourceDocument, path: readonly PathSegment[]): string {
  const node = locate(source, path).node;
  return isScalar(node) && node.type === 'PLAIN' && node.comment !== undefined
    ? " (in YAML ' #' starts a comment, which cut the expression short: put it in quotes)"
    : '';
}

/** The names an expression may refer to: fields, and fields of typed groups. */
export interface FieldShape {
  fields: Readonly<Record<string, FieldDefinition | { type: string }>>;
  groups?: Readonly<Record<string, { types: readonly string[]; fields: Readonly<Record<string, unknown>> }>>;
}

export function objectShape(object: ObjectDefinition): FieldShape {
  return { fields: object.fields, groups: object.groups };
}

function unknownField(path: readonly string[], shape: FieldShape): string | undefined {
  const [first, second, third] = path;
  if (first === undefined) return undefined;
  if (Object.hasOwn(shape.fields, first)) {
    const type = (shape.fields[first] as { type: string }).type;
    return path.length > 1 ? `field '${first}' is ${type} and has no member '${second}'` : undefined;
  }
  // A typed group entry is addressed with its type, as records carry it: addresses.main.city.
  const group = shape.groups && Object.hasOwn(shape.groups, first) ? shape.groups[first] : undefined;
  if (group) {
    const example = `${first}.${group.types[0]}.${Object.keys(group.fields)[0]}`;
    if (path.length === 2 && Object.hasOwn(group.fields, second!)) {
      return `'${first}.${second}' needs the group type: ${group.types.map((type) => `${first}.${type}.${second}`).join(' or ')}`;
    }
    if (path.length !== 3) return `'${path.join('.')}' does not name a group field; write group.type.field, e.g. ${example}`;
    if (!group.types.includes(second!)) return `group '${first}' has no type '${second}' (it has: ${group.types.join(', ')})`;
    if (Object.hasOwn(group.fields, third!)) return undefined;
    return `group '${first}' has no field '${third}' (it has: ${list(Object.keys(group.fields))})`;
  }
  const known = [...Object.keys(shape.fields), ...Object.keys(shape.groups ?? {})];
  const guess = closest(first, known);
  return `has no field '${first}'${guess ? `; did you mean '${guess}'?` : ` (it has: ${list(known)})`}`;
}

export function list(names: readonly string[], max = 12): string {
  return names.length > max ? `${names.slice(0, max).join(', ')}, … (${names.length} in all)` : names.join(', ');
}
