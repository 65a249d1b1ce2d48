/**
 * Loading: find files → parse with positions → substitute ${env:..}/${file:..} → JSON Schema per
 * kind (System per connector) → duplicate ids → semantic checks → one frozen, compiled snapshot.
 * Problems never throw: they are collected and returned, each with file, line and column.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { CheckContext, type Registered } from './checks/check-context.js';
import { checkApiClient } from './checks/check-api-client.js';
import { checkCapabilities } from './checks/check-capabilities.js';
import { checkConcurrencyGroups } from './checks/check-concurrency.js';
import { checkDurations } from './checks/check-durations.js';
import { checkFlow, checkFlowGraph, checkProcessIds } from './checks/check-flow.js';
import { checkSync } from './checks/check-sync.js';
import { checkSystem } from './checks/check-system.js';
import { checkWebhook } from './checks/check-webhook.js';
import { findDefinitionFiles, type DefinitionFile } from './load/find-files.js';
import { documentValue, parseDefinitionFile } from './load/parse-documents.js';
import { positionAtOffset, positionOf, problemAt, type SourceDocument } from './load/source-document.js';
import { substituteDocument, substitutionCodes, type SubstitutionContext } from './load/substitute.js';
import { sortProblems, type Problem } from './problem.js';
import { checkExpressionSyntax } from './checks/check-syntax.js';
import { closest } from './schema/did-you-mean.js';
import { schemaProblems } from './schema/schema-problems.js';
import { createAjv, definitionValidators } from './schema/validators.js';
import type { ConnectorSpecs } from './connector-spec.js';
import { deepFreeze, frozenMap, type Origin, type Snapshot } from './snapshot.js';
import { definitionKinds, type Definition, type DefinitionKind } from './types.js';

export interface LoadOptions {
  /** The registered connectors' specs, which System definitions are checked against. */
  connectors: ConnectorSpecs;
  /** Environment for `${env:..}`; defaults to process.env. */
  env?: SubstitutionContext['env'];
}

/**
 * A document that was read, whether or not it is valid: what a report lists as checked, so a
 * definition without problems shows as passing (`syncline validate --format junit`).
 */
export interface CheckedDocument {
  /** The file as problems name it. */
  file: string;
  /** Where the document starts (1-based); its problems lie at or after it. */
  line: number;
  /** Known when the document says them, even if it is otherwise broken. */
  kind?: string;
  id?: string;
}

/**
 * Loaded: the snapshot and its warnings (problems of severity warning, or none). Refused: every
 * problem, warnings included. Either way the files and documents that were checked.
 */
export type LoadResult = { files: string[]; documents: CheckedDocument[] } & (
  | { ok: true; snapshot: Snapshot; problems: Problem[] }
  | { ok: false; problems: Problem[] }
);

export async function loadDefinitions(paths: readonly string[], options: LoadOptions): Promise<LoadResult> {
  const env = options.env ?? process.env;
  const validators = definitionValidators(options.connectors);
  const files = await findDefinitionFiles(paths);
  const parsed = await Promise.all(files.map((file) => parseDefinitionFile(file)));
  const context = new CheckContext();
  const unresolved: UnresolvedValue[] = [];
  const digest = createHash('sha256');
  context.problems.push(...emptyDirectories(paths, files));

  parsed.forEach((file, index) => {
    digest.update(files[index]!.absolutePath).update('\0').update(file.text).update('\0');
    context.problems.push(...file.problems);
    for (const source of file.broken) markUnreadable(context, source.document.contents as Node | null);
    for (const source of file.documents) {
      const value = readDocument(context, source, { env });
      if (!value) continue;
      const validate = validators.forDocument(source.kind as DefinitionKind, value);
      const found = validate(value) ? [] : schemaProblems(source, validate.errors ?? []);
      context.problems.push(...found);
      // One with an unset variable is checked on, for all its problems at once (its error keeps
      // the whole set from loading): its ${env:..} text may fail only the form of a text value.
      const values = source.unresolved.map((range) => unresolvedValue(source, range));
      unresolved.push(...values);
      const valid = found.every((problem) => textForm.has(problem.code) && values.some((unset) => unset.masks(problem)));
      register(context, source, value as unknown as Definition, valid);
      // The semantic checks skip it; the syntax of its expressions is still told now, not a run later.
      if (!valid && (source.kind === 'Sync' || source.kind === 'Webhook')) checkExpressionSyntax(context, source, source.kind, value);
    }
  });

  const compiled = runChecks(context, options.connectors);
  const problems = sortProblems(context.problems.filter((problem) => !unresolved.some((value) => value.masks(problem))));
  const checked = { files: files.map((f) => f.displayPath), documents: parsed.flatMap(checkedDocuments) };
  if (context.errors > 0) return { ok: false, problems, ...checked };
  return {
    ok: true,
    problems,
    ...checked,
    snapshot: buildSnapshot(
      context,
      compiled,
      options.connectors,
      digest.digest('hex'),
      files.map((f) => f.displayPath),
    ),
  };
}

/** The documents of a file in file order: the broken ones, and those that are not empty. */
function checkedDocuments(file: { documents: SourceDocument[]; broken: SourceDocument[] }): CheckedDocument[] {
  const written = file.documents.filter((source) => {
    const contents = source.document.contents as Node | null;
    return contents !== null && !(isScalar(contents) && contents.value === null);
  });
  return [...written, ...file.broken]
    .sort((a, b) => a.index - b.index)
    .map((source) => {
      const contents = source.document.contents as Node | null;
      const kind = source.kind ?? (isMap(contents) ? scalarAt(contents, 'kind') : undefined);
      const id = source.id ?? (isMap(contents) ? scalarAt(contents, 'id') : undefined);
      return {
        file: source.file,
        line: positionOf(source, []).line,
        ...(typeof kind === 'string' ? { kind } : {}),
        ...(typeof id === 'string' || typeof id === 'number' ? { id: String(id) } : {}),
      };
    });
}

/**
 * A directory without definition files is a mistake (a typo in CI, a checkout in progress), not an
 * empty but valid set: validate fails and a reload keeps the definitions already served.
 */
function emptyDirectories(paths: readonly string[], files: readonly DefinitionFile[]): Problem[] {
  return paths
    .filter((path) => statSync(path).isDirectory() && !files.some((file) => file.root === resolve(path)))
    .map((path) => ({
      file: path,
      line: 1,
      column: 1,
      code: 'no-definitions',
      message: 'no definition files (*.yaml, *.yml other than test files *.test.yaml) in this directory',
    }));
}

/** Kind, id and substituted value of one document, or undefined when it cannot be a definition. */
function readDocument(
  context: CheckContext,
  source: SourceDocument,
  substitution: SubstitutionContext,
): Record<string, unknown> | undefined {
  const contents = source.document.contents as Node | null;
  // An empty document (a comment-only file, a trailing ---) defines nothing.
  if (contents === null || (isScalar(contents) && contents.value === null)) return undefined;
  if (!isMap(contents)) {
    context.problems.push(problemAt(source, [], 'not-a-definition', notAMappingMessage(contents)));
    return undefined;
  }
  const kind = scalarAt(contents, 'kind');
  const id = scalarAt(contents, 'id');
  if (typeof kind === 'string' && (definitionKinds as readonly string[]).includes(kind)) source.kind = kind;
  if (typeof id === 'string' || typeof id === 'number') source.id = String(id);
  if (kind === undefined) {
    const guess = guessKind(contents);
    const hint = guess ? ` (its keys look like ${/^[AEIOU]/.test(guess) ? 'an' : 'a'} ${guess}: add 'kind: ${guess}')` : '';
    context.problems.push(problemAt(source, [], 'missing-kind', `missing 'kind'; add one of: ${definitionKinds.join(', ')}${hint}`));
    return undefined;
  }
  if (!source.kind && kind === 'Test') {
    context.problems.push(
      problemAt(
        source,
        ['kind'],
        'test-outside-test-file',
        'kind Test belongs in a test file: name this file *.test.yaml (syncline test runs it, and the definitions never load it)',
      ),
    );
    return undefined;
  }
  if (!source.kind) {
    const guess = typeof kind === 'string' ? closest(kind, definitionKinds) : undefined;
    context.problems.push(
      problemAt(
        source,
        ['kind'],
        'unknown-kind',
        `unknown kind '${String(kind)}'; use one of: ${definitionKinds.join(', ')}${guess ? ` — did you mean '${guess}'?` : ''}`,
      ),
    );
    return undefined;
  }
  if (id === undefined) {
    context.problems.push(
      problemAt(source, ['kind'], 'missing-id', `${source.kind} has no 'id'; add an id, unique among ${source.kind} definitions`),
    );
    return undefined;
  }
  if (source.id === undefined || source.id === '') {
    context.problems.push(
      problemAt(source, ['id'], 'missing-id', `${source.kind}: id must be a non-empty name, unique among ${source.kind} definitions`),
    );
    return undefined;
  }
  const substitutionProblems = substituteDocument(source, substitution);
  context.problems.push(...substitutionProblems);
  if (substitutionProblems.length > 0) context.unreadable.add(`${source.kind}/${source.id}`);
  const result = documentValue(source);
  if ('problem' in result) {
    context.problems.push(result.problem);
    return undefined;
  }
  source.value = result.value;
  return result.value as Record<string, unknown>;
}

/** Schema problems with the form of a text, not its type: checks read such a text safely. */
const textForm: ReadonlySet<string> = new Set(['schema-pattern', 'schema-format']);

/** A scalar whose substitution failed, and which problems it hides. */
interface UnresolvedValue {
  masks(problem: Problem): boolean;
}

/**
 * What is reported inside a value that kept its `${env:..}` text (a URL that is no URL, a file name
 * that is not there) is about that text, not about what would run: only the substitution's own
 * problem stands there.
 */
function unresolvedValue(source: SourceDocument, [start, end]: readonly [number, number]): UnresolvedValue {
  const from = positionAtOffset(source, start);
  const to = positionAtOffset(source, end);
  const before = (a: { line: number; column: number }, b: { line: number; column: number }) =>
    a.line < b.line || (a.line === b.line && a.column < b.column);
  return {
    masks: (problem) =>
      problem.file === source.file && !substitutionCodes.has(problem.code) && !before(problem, from) && before(problem, to),
  };
}

const definitionShape = '"kind: Sync" and "id: my-sync" on their own lines, one definition per document (documents are separated by ---)';

function notAMappingMessage(contents: Node): string {
  if (isSeq(contents))
    return `this document is a list, but a definition is a mapping with ${definitionShape}; remove the '- ' in front of kind`;
  const text = isScalar(contents) ? String(contents.value).replace(/\s+/g, ' ').trim() : '';
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return `this document is ${isScalar(contents) ? `the plain text '${shown}'` : 'not a mapping'}, but a definition is a mapping with ${definitionShape}`;
}

/** A key that only one kind has, so that a missing kind can be named. */
const kindByKey: Record<string, DefinitionKind> = {
  connector: 'System',
  mapping: 'Sync',
  action: 'Webhook',
  steps: 'Flow',
  scopes: 'ApiClient',
};

function guessKind(map: Node): DefinitionKind | undefined {
  for (const [key, kind] of Object.entries(kindByKey)) if (isMap(map) && map.has(key)) return kind;
  return undefined;
}

/** Remembers the kind and id of a document that cannot be read, when it says them. */
function markUnreadable(context: CheckContext, contents: Node | null): void {
  if (!isMap(contents)) return;
  const kind = scalarAt(contents, 'kind');
  const id = scalarAt(contents, 'id');
  if (typeof kind === 'string' && (typeof id === 'string' || typeof id === 'number')) context.unreadable.add(`${kind}/${String(id)}`);
}

function scalarAt(map: Node, key: string): unknown {
  const node = isMap(map) ? map.get(key, true) : undefined;
  return isScalar(node) ? node.value : node === undefined ? undefined : '[not a scalar]';
}

function register(context: CheckContext, source: SourceDocument, definition: Definition, valid: boolean): void {
  const registry = context.registry[definition.kind] as Map<string, Registered<Definition>>;
  const existing = registry.get(source.id!);
  if (existing) {
    const first = positionOf(existing.source, ['id']);
    context.problems.push(
      problemAt(
        source,
        ['id'],
        'duplicate-id',
        `${definition.kind} '${source.id}' is already defined at ${existing.source.file}:${first.line}:${first.column}; ids are unique per kind across all files`,
      ),
    );
    return;
  }
  registry.set(source.id!, { definition, source, valid });
}

interface Compiled {
  syncs: Map<string, NonNullable<ReturnType<typeof checkSync>>>;
  webhooks: Map<string, NonNullable<ReturnType<typeof checkWebhook>>>;
  tokens: Map<string, Buffer>;
}

function runChecks(context: CheckContext, connectors: ConnectorSpecs): Compiled {
  const compiled: Compiled = { syncs: new Map(), webhooks: new Map(), tokens: new Map() };
  // Request and response schemas are the user's own JSON Schemas: unknown keywords (typos) are
  // still refused, but the strictTypes lint (`properties` without `type: object`) is not an error
  // in JSON Schema and would reject schemas that validate fine everywhere else.
  const requestAjv = createAjv({ strictTypes: false, strictTuples: false });
  const valid = <T>(map: Map<string, Registered<T>>) => [...map.values()].filter((entry) => entry.valid);
  for (const entry of valid(context.registry.System)) checkSystem(context, entry, connectors);
  for (const entry of valid(context.registry.Sync)) {
    const result = checkSync(context, entry);
    if (result) compiled.syncs.set(entry.definition.id, result);
  }
  for (const entry of valid(context.registry.Webhook)) {
    const result = checkWebhook(context, entry, requestAjv);
    if (result) compiled.webhooks.set(entry.definition.id, result);
  }
  for (const entry of valid(context.registry.Flow)) checkFlow(context, entry);
  checkFlowGraph(context);
  checkConcurrencyGroups(context);
  checkCapabilities(context, connectors);
  for (const entry of valid(context.registry.ApiClient)) {
    const hash = checkApiClient(context, entry);
    if (hash) compiled.tokens.set(entry.definition.id, hash);
  }
  for (const kind of definitionKinds)
    for (const entry of valid<unknown>(context.registry[kind] as Map<string, Registered<unknown>>)) checkDurations(context, kind, entry);
  checkProcessIds(context);
  return compiled;
}

function origin(source: SourceDocument): Origin {
  const { line, column } = positionOf(source, []);
  return { file: source.file, line, column };
}

function buildSnapshot(context: CheckContext, compiled: Compiled, connectors: ConnectorSpecs, digest: string, files: string[]): Snapshot {
  // biome-ignore lint/suspicious/noExplicitAny: each kind's entries are made by their own `make`; the map is typed by the snapshot's fields.
  const entries = <K extends DefinitionKind, E>(kind: K, make: (entry: Registered<any>) => E) =>
    frozenMap([...context.registry[kind].values()].map((entry) => [entry.definition.id, Object.freeze(make(entry))] as const));
  return Object.freeze({
    digest,
    loadedAt: new Date(),
    files: Object.freeze(files),
    // A valid System names a registered connector: the schema allows no other.
    systems: entries('System', (e) => ({
      definition: deepFreeze(e.definition),
      origin: origin(e.source),
      capabilities: connectors.get(e.definition.connector)!.capabilities,
    })),
    syncs: entries('Sync', (e) => ({
      definition: deepFreeze(e.definition),
      origin: origin(e.source),
      ...compiled.syncs.get(e.definition.id)!,
    })),
    webhooks: entries('Webhook', (e) => ({
      definition: deepFreeze(e.definition),
      origin: origin(e.source),
      ...compiled.webhooks.get(e.definition.id)!,
    })),
    flows: entries('Flow', (e) => ({ definition: deepFreeze(e.definition), origin: origin(e.source) })),
    apiClients: entries('ApiClient', (e) => {
      const { token: _plain, ...definition } = e.definition;
      return { definition: deepFreeze(definition), origin: origin(e.source), tokenHash: compiled.tokens.get(e.definition.id)! };
    }),
  });
}
