/**
 * Semantic checks of a Webhook: an unguessable id, what its action needs (and nothing its action
 * ignores), references, expressions whose placeholders the request schema declares, compilable
 * schemas and mappings.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { collectFields, collectPlaceholders, type Expression } from '../expression/index.js';
import type { WebhookEntry } from '../snapshot.js';
import type { ObjectDefinition, SyncDefinition, WebhookAction, WebhookDefinition } from '../types.js';
import type { Expression as Mapping } from 'jsonata';
import { exponentialPart } from '../regex/backtracking-pattern.js';
import { objectShape, type CheckContext, type FieldShape, type Registered } from './check-context.js';
import { checkMappingTarget, keysOf } from './check-mapping.js';
import type { PathSegment, SourceDocument } from '../load/source-document.js';
import { closest } from '../schema/did-you-mean.js';
import { displayPath, instancePathSegments, schemaProblems } from '../schema/schema-problems.js';

export type CompiledWebhook = Omit<WebhookEntry, 'definition' | 'origin'>;

/** The webhook id is the URL's only secret when no secret is set: long and URL-safe. */
export const minimumWebhookIdLength = 16;

type Setting = keyof WebhookDefinition;

/** Settings each action requires, and settings that only some actions use. */
const requiredBy: Record<WebhookAction, Setting[]> = {
  startSync: [],
  readWithSync: ['sync'],
  readQueryWithSync: ['sync'],
  saveWithSync: ['sync'],
  readWithSystem: ['system', 'object', 'responseSchema'],
  readQueryWithSystem: ['system', 'query'],
  saveWithSystem: ['system', 'object'],
};
const usedOnlyBy: Partial<Record<Setting, WebhookAction[]>> = {
  sync: ['startSync', 'readWithSync', 'readQueryWithSync', 'saveWithSync'],
  flow: ['startSync'],
  recordStore: ['startSync'],
  system: ['readWithSystem', 'readQueryWithSystem', 'saveWithSystem'],
  object: ['readWithSystem', 'saveWithSystem'],
  query: ['readQueryWithSystem'],
  search: ['readWithSync', 'readWithSystem'],
  order: ['readWithSync', 'readWithSystem', 'readQueryWithSync', 'readQueryWithSystem'],
  firstOnly: ['readWithSync', 'readQueryWithSync', 'readWithSystem', 'readQueryWithSystem'],
  queryFilter: ['readQueryWithSync', 'readQueryWithSystem'],
  paging: ['readQueryWithSystem'],
  targetSearch: ['saveWithSystem'],
  onNoMatch: ['saveWithSystem'],
  onMatch: ['saveWithSystem'],
  readMapping: ['readWithSystem', 'readQueryWithSystem', 'saveWithSystem'],
  writeMapping: ['saveWithSystem'],
  resultMapping: ['saveWithSystem', 'saveWithSync'],
};
/** The sync's webhookTypes entry that each sync-based action needs. */
const syncTypeFor: Partial<Record<WebhookAction, SyncDefinition['webhookTypes'][number]>> = {
  readWithSync: 'read',
  readQueryWithSync: 'readQuery',
  saveWithSync: 'write',
};

export function checkWebhook(context: CheckContext, entry: Registered<WebhookDefinition>, ajv: Ajv2020): CompiledWebhook | undefined {
  const { definition: hook, source } = entry;
  const before = context.errors;
  checkId(context, source, hook.id);
  checkActionSettings(context, source, hook);
  const { searchShape, targetShape, object, sync, statement } = checkReferences(context, source, hook);
  checkSecurity(context, source, hook);
  checkFirstOnly(context, source, hook, sync, statement);

  const validateRequest = hook.requestSchema && compileSchema(context, ajv, source, 'requestSchema', hook.requestSchema);
  if (hook.responseSchema) compileSchema(context, ajv, source, 'responseSchema', hook.responseSchema);

  const parse = (key: 'condition' | 'search' | 'targetSearch' | 'queryFilter', shape?: FieldShape, owner?: string) => {
    const text = hook[key];
    if (text === undefined) return undefined;
    const ast = context.expression(source, [key], text);
    if (!ast) return undefined;
    checkPlaceholders(context, source, key, ast, hook.requestSchema);
    if (shape && owner) context.fields(source, [key], collectFields(ast), owner, shape);
    return ast;
  };
  const objectName = `${hook.system ?? hook.sync}/${hook.object ?? ''}`.replace(/\/$/, '');
  const condition = parse('condition');
  const search = parse('search', searchShape, objectName);
  const targetSearch = parse('targetSearch', targetShape, objectName);
  const queryFilter = parse('queryFilter');
  checkPagingFilter(context, source, hook, queryFilter);
  const order = hook.order === undefined ? undefined : context.order(source, ['order'], hook.order);
  if (order && searchShape)
    context.fields(
      source,
      ['order'],
      order.map((t) => ({ path: t.field, start: t.start })),
      objectName,
      searchShape,
    );

  const mapping = (key: 'readMapping' | 'writeMapping' | 'resultMapping') =>
    hook[key] === undefined ? undefined : context.mapping(source, [key], hook[key]!);
  const readMapping = mapping('readMapping');
  const writeMapping = mapping('writeMapping');
  const resultMapping = mapping('resultMapping');
  if (hook.action === 'saveWithSystem' && object) checkWrittenFields(context, source, hook, object, writeMapping);

  if (context.errors > before) return undefined;
  return { condition, search, order, targetSearch, queryFilter, readMapping, writeMapping, resultMapping, validateRequest };
}

function checkId(context: CheckContext, source: SourceDocument, id: string): void {
  const bad = [...id].findIndex((c) => !/[A-Za-z0-9_-]/.test(c));
  if (bad >= 0) {
    context.report(
      source,
      ['id'],
      'webhook-id',
      `id: character '${[...id][bad]}' is not allowed in a webhook id; use only A-Z a-z 0-9 _ - (\`syncline webhook new\` makes one)`,
      { offsetInValue: bad },
    );
  } else if (id.length < minimumWebhookIdLength) {
    context.report(
      source,
      ['id'],
      'webhook-id',
      `id: '${id}' has ${id.length} characters; a webhook id is part of its URL and needs at least ${minimumWebhookIdLength} unguessable ones (\`syncline webhook new\` makes one)`,
    );
  }
}

function checkActionSettings(context: CheckContext, source: SourceDocument, hook: WebhookDefinition): void {
  for (const setting of requiredBy[hook.action]) {
    if (hook[setting] === undefined) context.report(source, ['action'], 'webhook-setting', `action ${hook.action} needs '${setting}'`);
  }
  if (hook.action === 'startSync' && (hook.sync === undefined) === (hook.flow === undefined)) {
    context.report(source, ['action'], 'webhook-setting', 'action startSync needs exactly one of sync and flow');
  }
  // A setting another action uses is ignored by this one: the webhook works as if it were not
  // written, which is likely a mistake (a copied definition, a changed action) but no error.
  for (const [setting, actions] of Object.entries(usedOnlyBy) as Array<[Setting, WebhookAction[]]>) {
    if (!actions.includes(hook.action) && context.written(source, [setting])) {
      context.warn(
        source,
        [setting],
        'setting-without-effect',
        `${setting} has no effect with action ${hook.action}; it is used by ${actions.join(', ')}`,
        { key: true },
      );
    }
  }
}

interface References {
  searchShape?: FieldShape;
  targetShape?: FieldShape;
  /** The system's object the webhook reads or writes. */
  object?: ObjectDefinition;
  /** The sync the webhook uses. */
  sync?: SyncDefinition;
  /** The statement of the query read: the webhook's, or its sync's source query. */
  statement?: string;
}

function checkReferences(context: CheckContext, source: SourceDocument, hook: WebhookDefinition): References {
  let object: ObjectDefinition | undefined;
  let statement: string | undefined;
  if (hook.system !== undefined) {
    const system = context.resolve('System', hook.system, source, ['system']);
    if (system && hook.object !== undefined) object = context.object(system, hook.object, source, ['object']);
    if (system && hook.query !== undefined && !Object.hasOwn(system.definition.queries, hook.query)) {
      const known = Object.keys(system.definition.queries);
      context.report(
        source,
        ['query'],
        'unknown-reference',
        `query: System '${hook.system}' has no query '${hook.query}'${known.length ? ` (it has: ${known.join(', ')})` : ' (it declares no queries)'}`,
      );
    } else if (system && hook.query !== undefined) {
      statement = system.definition.queries[hook.query]!.statement;
    }
    if (system && hook.action === 'saveWithSystem' && (system.definition.readOnly || object?.readOnly)) {
      context.report(
        source,
        ['object'],
        'read-only-target',
        `object: ${hook.system}/${hook.object} is read-only; saveWithSystem cannot write to it`,
      );
    }
  }
  if (hook.flow !== undefined) context.resolve('Flow', hook.flow, source, ['flow']);
  let syncSourceShape: FieldShape | undefined;
  let sync: Registered<SyncDefinition> | undefined;
  if (hook.sync !== undefined) {
    sync = context.resolve('Sync', hook.sync, source, ['sync']);
    const needed = syncTypeFor[hook.action];
    if (sync && needed && !sync.definition.webhookTypes.includes(needed)) {
      context.report(
        source,
        ['sync'],
        'webhook-sync-type',
        `sync: action ${hook.action} needs a webhook sync for '${needed}'; add webhookTypes: [${needed}] to Sync '${hook.sync}'`,
      );
    }
    if (sync && hook.recordStore && !sync.definition.source.recordStore) {
      context.report(
        source,
        ['recordStore'],
        'webhook-record-store',
        `recordStore: Sync '${hook.sync}' does not read the record store; set source.recordStore: true on it`,
      );
    }
    const s = sync?.definition.source;
    if (s?.system !== undefined && s.object !== undefined) {
      const system = context.usable('System', s.system);
      const syncObject = system?.definition.objects[s.object];
      if (syncObject) syncSourceShape = objectShape(syncObject);
    }
    if (s?.system !== undefined && s.query !== undefined)
      statement = context.usable('System', s.system)?.definition.queries?.[s.query]?.statement;
  }
  const shape = object && objectShape(object);
  return {
    searchShape: shape ?? syncSourceShape,
    targetShape: shape,
    ...(object ? { object } : {}),
    ...(sync ? { sync: sync.definition } : {}),
    ...(statement === undefined ? {} : { statement }),
  };
}

/**
 * firstOnly answers the first record; without a sort order that is whichever the system returns
 * first, which may change between calls (the seed: "sorting should be set"). A warning: it works.
 * The sync's order counts for sync-based reads, a query's own ORDER BY for query reads; with
 * paging firstOnly does nothing.
 */
function checkFirstOnly(
  context: CheckContext,
  source: SourceDocument,
  hook: WebhookDefinition,
  sync: SyncDefinition | undefined,
  statement: string | undefined,
): void {
  if (!hook.firstOnly || hook.order !== undefined || hook.paging !== undefined) return;
  if (!usedOnlyBy.firstOnly!.includes(hook.action)) return;
  if (sync?.source.order !== undefined) return;
  if (statement !== undefined && /\border\s+by\b/i.test(statement)) return;
  const where = statement === undefined ? '' : ", or sort in the query's statement (ORDER BY)";
  context.warn(
    source,
    ['firstOnly'],
    'first-without-order',
    `firstOnly answers the first record of an unsorted result, which may be a different one on each call; set order (e.g. order: 'id desc')${where}`,
  );
}

/**
 * saveWithSystem writes the writeMapping's result, or without one the request data as it is. A
 * mapping key the object lacks fails every call; so does a property of a closed request schema
 * (additionalProperties: false) written as it is. Without a mapping and without such a schema,
 * the caller decides which fields are written — the key and any other — which works, but is
 * rarely meant: a warning.
 */
function checkWrittenFields(
  context: CheckContext,
  source: SourceDocument,
  hook: WebhookDefinition,
  object: ObjectDefinition,
  writeMapping: Mapping | undefined,
): void {
  const label = `${hook.system}/${hook.object}`;
  if (hook.writeMapping !== undefined) {
    const keys = keysOf(writeMapping, hook.writeMapping);
    if (keys) checkMappingTarget(context, source, ['writeMapping'], keys, label, object);
    return;
  }
  const schema = hook.requestSchema;
  const properties = schema?.properties;
  if (schema?.additionalProperties === false && properties !== null && typeof properties === 'object') {
    const fields = [...Object.keys(object.fields), ...Object.keys(object.groups ?? {})];
    for (const name of Object.keys(properties)) {
      if (fields.includes(name) || Object.keys(object.fields).length === 0) continue;
      context.report(
        source,
        ['requestSchema', 'properties', name],
        'unknown-target-field',
        `requestSchema.properties.${name}: without a writeMapping the request is written as it is, and '${name}' is not a field of ${label}; map the request with writeMapping, or leave '${name}' out`,
        { key: true },
      );
    }
    return;
  }
  context.warn(
    source,
    ['action'],
    'write-mapping-missing',
    `saveWithSystem without writeMapping writes every property a caller sends as a field of ${label}, its key included; add a writeMapping naming the fields a call may set (e.g. writeMapping: '{ "name": name }'), or a requestSchema with additionalProperties: false`,
  );
}

/**
 * paging.filterParam carries a filter of the caller's own (runtime/webhooks/actions/paging-filter.ts),
 * AND-ed into #FlowFilter#: the query must have that placeholder — in its count too, or `total`
 * would count rows the filter leaves out — and the property is not also a value for the queryFilter.
 */
function checkPagingFilter(
  context: CheckContext,
  source: SourceDocument,
  hook: WebhookDefinition,
  queryFilter: Expression | undefined,
): void {
  const name = hook.paging?.filterParam;
  if (name === undefined || hook.action !== 'readQueryWithSystem') return;
  const path = ['paging', 'filterParam'];
  if (name === hook.paging!.pageSizeParam || name === hook.paging!.offsetParam) {
    context.report(
      source,
      path,
      'webhook-paging',
      `paging.filterParam: '${name}' already names the ${name === hook.paging!.pageSizeParam ? 'page size' : 'offset'}; give the filter property a name of its own`,
    );
  }
  const query =
    hook.system === undefined || hook.query === undefined
      ? undefined
      : context.usable('System', hook.system)?.definition.queries?.[hook.query];
  if (query !== undefined) {
    for (const [key, text] of [
      ['statement', query.statement],
      ['countStatement', query.countStatement],
    ] as const) {
      if (text !== undefined && !text.includes('#FlowFilter#')) {
        context.report(
          source,
          path,
          'webhook-paging',
          `paging.filterParam: the ${key} of query ${hook.system}/${hook.query} has no #FlowFilter#, where the request's filter would go; add it there`,
        );
      }
    }
  }
  const placeholder = queryFilter && collectPlaceholders(queryFilter).find((p) => p.path[0] === name);
  if (placeholder) {
    context.report(
      source,
      ['queryFilter'],
      'webhook-paging',
      `queryFilter: #${placeholder.path.join('.')}# takes the paging filter property '${name}', whose value is a filter of its own (AND-ed with this one), not a value; use another property here`,
      { offsetInValue: placeholder.start },
    );
  }
}

function checkSecurity(context: CheckContext, source: SourceDocument, hook: WebhookDefinition): void {
  const challenge = hook.challenge;
  if (challenge && (challenge.profile === 'x-crc' || challenge.profile === 'zoom') && challenge.secret === undefined) {
    context.report(
      source,
      ['challenge'],
      'webhook-challenge',
      `challenge: profile ${challenge.profile} signs the challenge with the network client secret; add challenge.secret`,
      { key: true },
    );
  }
  if (challenge?.profile === 'meta' && challenge.verifyToken === undefined) {
    context.report(
      source,
      ['challenge'],
      'webhook-challenge',
      'challenge: profile meta compares hub.verify_token; add challenge.verifyToken',
      { key: true },
    );
  }
  if (hook.signature?.profile === 'hmac' && hook.signature.header === undefined) {
    context.report(
      source,
      ['signature'],
      'webhook-signature',
      'signature: profile hmac needs header (the request header carrying the signature)',
      { key: true },
    );
  }
  if (hook.idempotency?.bodyPath !== undefined && context.written(source, ['idempotency', 'header'])) {
    context.report(source, ['idempotency'], 'webhook-idempotency', 'idempotency: give header or bodyPath, not both', { key: true });
  }
}

/**
 * Compiled schemas by their JSON text, across loads: compiling is most of the cost of checking a
 * webhook, and a hot reload re-checks every webhook while usually changing one. Bounded, oldest
 * out first; only schemas that compiled cleanly are kept.
 */
const compiledSchemas = new Map<string, ValidateFunction>();
const maxCompiledSchemas = 5000;

function remember(text: string, validate: ValidateFunction): ValidateFunction {
  if (compiledSchemas.size >= maxCompiledSchemas) compiledSchemas.delete(compiledSchemas.keys().next().value!);
  compiledSchemas.set(text, validate);
  return validate;
}

/**
 * Compiles a request or response schema. It is first checked against the JSON Schema meta-schema,
 * so that a mistake is reported at its own line (`type: int` under properties.id) rather than at
 * the top of the schema with Ajv's internal paths.
 */
function compileSchema(
  context: CheckContext,
  ajv: Ajv2020,
  source: SourceDocument,
  key: 'requestSchema' | 'responseSchema',
  schema: Record<string, unknown>,
): ValidateFunction | undefined {
  const text = JSON.stringify(schema);
  const cached = compiledSchemas.get(text);
  if (cached) return cached;
  try {
    if (!ajv.validateSchema(schema)) {
      const errors = (ajv.errors ?? []).map((error) => ({ ...error, instancePath: `/${key}${error.instancePath}` }));
      for (const problem of schemaProblems(source, errors)) {
        // "requestSchema.properties.id.type: …" becomes "requestSchema.properties.id.type: not a valid JSON Schema: …".
        const message = problem.message.replace(/^([^\s:]+: )?/, '$1not a valid JSON Schema: ');
        context.problems.push({ ...problem, code: 'json-schema', message });
      }
      return undefined;
    }
    const slow = backtrackingPattern(schema, [key]);
    if (slow !== undefined) {
      context.report(
        source,
        slow.path,
        'json-schema',
        `${displayPath(slow.path)}: the pattern repeats ${slow.part}, a group whose every part repeats, so some inputs take exponential time (${'`'}^(a+)+$${'`'} on 30 a's and a '!' takes seconds, and the server answers nothing else meanwhile); repeat the inner part once (${'`'}^a+$${'`'}) or give each repetition a required character (${'`'}^([a-z]+\\.)*$${'`'})`,
        slow.key ? { key: true } : undefined,
      );
      return undefined;
    }
    return remember(text, ajv.compile(schema));
  } catch (error) {
    const { path, message } = compileError(ajv, schema, (error as Error).message);
    context.report(source, [key, ...path], 'json-schema', `${displayPath([key, ...path])}: not a valid JSON Schema: ${message}`, {
      key: true,
    });
    return undefined;
  }
}

/**
 * The first regular expression of a schema — a `pattern`, a key of `patternProperties` — that
 * exponentialPart finds, with its path (`key` when the pattern is the key itself).
 */
function backtrackingPattern(schema: unknown, path: PathSegment[]): { path: PathSegment[]; part: string; key: boolean } | undefined {
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) {
      const found = backtrackingPattern(item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof schema !== 'object' || schema === null) return undefined;
  for (const [name, value] of Object.entries(schema)) {
    if (name === 'pattern' && typeof value === 'string') {
      const part = exponentialPart(value);
      if (part !== undefined) return { path: [...path, name], part, key: false };
    }
    if (name === 'patternProperties' && typeof value === 'object' && value !== null) {
      for (const pattern of Object.keys(value)) {
        const part = exponentialPart(pattern);
        if (part !== undefined) return { path: [...path, name, pattern], part, key: true };
      }
    }
    // Values given as data, not as schemas: a `pattern` inside them is text.
    if (name === 'const' || name === 'enum' || name === 'default' || name === 'examples') continue;
    const found = backtrackingPattern(value, [...path, name]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Where in the schema Ajv's strict mode found fault, and what to do about it. Unknown keywords and
 * formats are nearly always typos, so they are pointed at and matched against the known ones.
 */
function compileError(ajv: Ajv2020, schema: Record<string, unknown>, message: string): { path: PathSegment[]; message: string } {
  const keyword = /unknown keyword: "([^"]+)"/.exec(message)?.[1];
  const keywordPath = keyword === undefined ? undefined : pathOfKey(schema, keyword);
  if (keyword !== undefined && keywordPath) {
    const guess = closest(keyword, Object.keys(ajv.RULES.keywords));
    return { path: keywordPath, message: `unknown keyword '${keyword}'${guess ? `; did you mean '${guess}'?` : ''}` };
  }
  const format = /unknown format "([^"]+)" ignored in schema at path "#([^"]*)"/.exec(message);
  if (format) {
    const guess = closest(format[1]!, Object.keys(ajv.formats));
    const hint = guess ? `did you mean '${guess}'?` : `known formats: ${Object.keys(ajv.formats).join(', ')}`;
    return { path: [...instancePathSegments(format[2]!), 'format'], message: `unknown format '${format[1]}'; ${hint}` };
  }
  return { path: [], message };
}

/** Path of the first key named `name` in a nested value, depth first in written order. */
function pathOfKey(value: unknown, name: string): PathSegment[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    if (key === name && !Array.isArray(value)) return [key];
    const below = pathOfKey(child, name);
    if (below) return [Array.isArray(value) ? Number(key) : key, ...below];
  }
  return undefined;
}

/** Placeholders must name a property the request schema declares, when the webhook has one. */
function checkPlaceholders(
  context: CheckContext,
  source: SourceDocument,
  key: string,
  ast: Expression,
  requestSchema: Record<string, unknown> | undefined,
): void {
  if (!requestSchema) return;
  for (const placeholder of collectPlaceholders(ast)) {
    let schema: Record<string, unknown> | undefined = requestSchema;
    for (const [depth, segment] of placeholder.path.entries()) {
      const properties = schema?.properties as Record<string, Record<string, unknown>> | undefined;
      const next = properties && Object.hasOwn(properties, segment) ? properties[segment] : undefined;
      if (!next) {
        const known = Object.keys(properties ?? {});
        const where = depth === 0 ? 'the request schema' : `request property '${placeholder.path.slice(0, depth).join('.')}'`;
        context.report(
          source,
          [key],
          'unknown-placeholder',
          `${key}: placeholder #${placeholder.path.join('.')}# names '${segment}', which ${where} does not declare${known.length ? ` (it declares: ${known.join(', ')})` : ''}`,
          { offsetInValue: placeholder.start },
        );
        break;
      }
      schema = next;
    }
  }
}
