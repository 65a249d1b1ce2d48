/**
 * Reads test files (`*.test.yaml`, kind Test) into the cases `syncline test` runs, the way the
 * definitions loader reads definitions: parsed with positions (parse-documents.ts), checked
 * against test.schema.json with the same problem wording and did-you-mean (schema-problems.ts),
 * and every case given a locator into its YAML, so a failure names `file:line:col`.
 *
 * With the definitions under test at hand, each case's sync, webhook, systems and objects must
 * exist: a case naming one that does not is a problem at its line, never a failing case, because
 * the file (not the definitions) is what needs fixing. Values are data: `${env:..}` is not
 * substituted in test files.
 */
import { isMap, isScalar, isSeq, type Node, visit } from 'yaml';
import { list } from '../../definitions/checks/check-context.js';
import type { DefinitionFile } from '../../definitions/load/find-files.js';
import { documentValue, parseDefinitionFile } from '../../definitions/load/parse-documents.js';
import { positionOf, problemAt, type PathSegment, type SourceDocument } from '../../definitions/load/source-document.js';
import { sortProblems, type Problem } from '../../definitions/problem.js';
import { closest } from '../../definitions/schema/did-you-mean.js';
import { displayPath, instancePathSegments, schemaProblems } from '../../definitions/schema/schema-problems.js';
import { testFileValidator } from '../../definitions/schema/validators.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { SystemRows, TestCase, TestRequest } from './test-case.js';
import { isWideIntegerText } from '../../connectors/records/exact-json.js';

/** The cases of one test file. */
export interface TestSuite {
  /** The file as shown in reports (relative to the working directory when inside it). */
  file: string;
  /** The id of its Test document(s), or the file name. */
  name: string;
  cases: TestCase[];
}

export interface LoadedTests {
  suites: TestSuite[];
  /** Problems of the files (all errors): with any, no case is run. */
  problems: Problem[];
}

/** The key that says what a case tests, and so which runner runs it. */
export const caseKinds = ['mapping', 'filter', 'condition', 'webhook', 'sync'] as const satisfies readonly TestCase['kind'][];

/**
 * The cases of `files`; with `snapshot`, their references are checked against it (validate checks
 * them only when the definitions themselves loaded, so a broken Sync is not also "unknown").
 */
export async function loadTestFiles(files: readonly DefinitionFile[], snapshot: Snapshot | undefined): Promise<LoadedTests> {
  const suites: TestSuite[] = [];
  const problems: Problem[] = [];
  for (const file of files) {
    const parsed = await parseDefinitionFile(file);
    problems.push(...parsed.problems);
    const cases: TestCase[] = [];
    let ids: string[] = [];
    let documents = 0;
    for (const source of parsed.documents) {
      const read = readTestDocument(source);
      if (read === undefined) continue;
      documents += 1;
      problems.push(...read.problems);
      if (read.id !== undefined) ids = [...ids, read.id];
      const names = new Map(cases.map((testCase) => [testCase.name, testCase.at([])] as const));
      for (const { index, testCase } of read.cases) {
        const first = names.get(testCase.name);
        if (first !== undefined) {
          problems.push(
            problemAt(
              source,
              ['cases', index, 'name'],
              'duplicate-case',
              `cases[${index}].name: '${testCase.name}' is already the name of the case at ${file.displayPath}:${first.line}:${first.column}; give each case its own name, reports tell them apart by it`,
            ),
          );
        }
        names.set(testCase.name, testCase.at([]));
        if (snapshot !== undefined) problems.push(...referenceProblems(source, index, testCase, snapshot));
      }
      cases.push(...read.cases.map((entry) => entry.testCase));
    }
    if (documents === 0 && parsed.problems.length === 0) {
      problems.push({
        file: file.displayPath,
        line: 1,
        column: 1,
        code: 'no-cases',
        message: 'this test file holds no cases; add a kind: Test document with cases',
      });
    }
    suites.push({ file: file.displayPath, name: ids.length > 0 ? ids.join(', ') : baseName(file.displayPath), cases });
  }
  return { suites, problems: sortProblems(problems) };
}

function baseName(path: string): string {
  return path.replace(/^.*[/\\]/, '');
}

/** A document's cases that can be read, and its problems. */
type ReadDocument = { id: string | undefined; cases: Array<{ index: number; testCase: TestCase }>; problems: Problem[] };

/**
 * Whole numbers past 2^53 in a test file as the text of their digits, as a run reads them: YAML
 * reads them as doubles, rounded (9007199254740993 becomes …992), while a sync reads such a value
 * of an Integer field as its exact digits — so a case would fail for a mapping that is right, or
 * pass for one that is wrong. Numbers written otherwise (`1e20`, `0x…`) are the doubles they are.
 */
function keepWideIntegers(source: SourceDocument): void {
  visit(source.document, {
    Scalar(_key, node) {
      if (typeof node.value !== 'number' || !Number.isInteger(node.value) || Number.isSafeInteger(node.value)) return;
      const written = node.range === undefined || node.range === null ? '' : source.text.slice(node.range[0], node.range[1]);
      const digits = written.trim().replace(/^\+/, '');
      if (isWideIntegerText(digits)) node.value = digits;
    },
  });
}

/** One document of a test file as cases; undefined for an empty document. */
function readTestDocument(source: SourceDocument): ReadDocument | undefined {
  const contents = source.document.contents as Node | null;
  if (contents === null || (isScalar(contents) && contents.value === null)) return undefined;
  const refuse = (path: PathSegment[], code: string, message: string): ReadDocument => ({
    id: undefined,
    cases: [],
    problems: [problemAt(source, path, code, message)],
  });
  if (!isMap(contents)) {
    return refuse(
      [],
      'not-a-test',
      `this document is ${isSeq(contents) ? 'a list' : 'not a mapping'}, but a test file holds mappings with "kind: Test" and "cases:"`,
    );
  }
  const kind = scalar(contents, 'kind');
  if (kind === undefined) return refuse([], 'missing-kind', "missing 'kind: Test'; a test file (*.test.yaml) holds Test documents");
  if (kind !== 'Test') {
    const guess = typeof kind === 'string' && closest(kind, ['Test']) ? " — did you mean 'Test'?" : '';
    return refuse(
      ['kind'],
      'not-a-test',
      `kind '${String(kind)}' in a test file, which holds only kind Test${guess || `; a ${String(kind)} definition belongs in a file not named *.test.yaml`}`,
    );
  }
  const id = scalar(contents, 'id');
  if (typeof id === 'string' || typeof id === 'number') {
    source.kind = 'Test';
    source.id = String(id);
  }
  keepWideIntegers(source);
  const result = documentValue(source);
  if ('problem' in result) return { id: source.id, cases: [], problems: [result.problem] };
  const value = result.value as Record<string, unknown>;
  const problems = exclusiveKindProblems(source, value);
  const muddled = muddledCases(value);
  // Cases with problems of their own; the others are read, so their references are checked too.
  const broken = new Set(muddled);
  let documentBroken = false;
  const validate = testFileValidator();
  if (!validate(value)) {
    // A case with two kinds is reported once, above; the branches' complaints about it would only repeat it.
    const errors = (validate.errors ?? []).filter((error) => {
      const [cases, index] = instancePathSegments(error.instancePath);
      if (cases !== 'cases' || index === undefined) documentBroken = true;
      else broken.add(Number(index));
      return !(cases === 'cases' && muddled.has(Number(index)));
    });
    problems.push(...schemaProblems(source, errors));
  }
  if (documentBroken) return { id: source.id, cases: [], problems };
  const cases = (value.cases as Array<Record<string, unknown>>)
    .map((raw, index) => ({ index, raw }))
    .filter(({ index }) => !broken.has(index))
    .map(({ index, raw }) => ({ index, testCase: toTestCase(source, raw, index) }));
  return { id: source.id, cases, problems };
}

/** Indexes of the cases that name more than one kind. */
function muddledCases(value: Record<string, unknown>): Set<number> {
  const cases = Array.isArray(value.cases) ? value.cases : [];
  const out = new Set<number>();
  cases.forEach((raw, index) => {
    if (raw !== null && typeof raw === 'object' && caseKinds.filter((kind) => Object.hasOwn(raw, kind)).length > 1) out.add(index);
  });
  return out;
}

/** A case tests one thing: a second kind key is a problem at that key. */
function exclusiveKindProblems(source: SourceDocument, value: Record<string, unknown>): Problem[] {
  const cases = Array.isArray(value.cases) ? (value.cases as unknown[]) : [];
  return [...muddledCases(value)].map((index) => {
    const given = caseKinds.filter((kind) => Object.hasOwn(cases[index] as object, kind));
    return problemAt(
      source,
      ['cases', index, given[1]!],
      'case-kinds',
      `cases[${index}]: has ${given.join(' and ')}, but a case tests one thing; split it into one case each`,
      { key: true },
    );
  });
}

function scalar(map: Node, key: string): unknown {
  const node = isMap(map) ? map.get(key, true) : undefined;
  return isScalar(node) ? node.value : node === undefined ? undefined : '[not a scalar]';
}

/** A schema-valid case as the runners take it. */
function toTestCase(source: SourceDocument, raw: Record<string, unknown>, index: number): TestCase {
  const base = {
    name: raw.name as string,
    file: source.file,
    at: (path: readonly PathSegment[]) => positionOf(source, ['cases', index, ...path]),
  };
  const params = raw.params === undefined ? {} : { params: textValues(raw.params as Record<string, unknown>) };
  const systems = raw.systems === undefined ? {} : { systems: raw.systems as SystemRows };
  if (raw.mapping !== undefined) {
    return {
      ...base,
      kind: 'mapping',
      sync: raw.mapping as string,
      input: raw.input as Record<string, unknown>,
      ...params,
      ...(raw.output === undefined ? {} : { output: raw.output as Record<string, unknown> }),
      ...(raw.error === undefined ? {} : { error: raw.error as string }),
      ...(raw.ignore === undefined ? {} : { ignore: raw.ignore as string[] }),
    };
  }
  if (raw.filter !== undefined) {
    return {
      ...base,
      kind: 'filter',
      sync: raw.filter as string,
      record: raw.record as Record<string, unknown>,
      ...params,
      expect: raw.expect as boolean,
    };
  }
  if (raw.condition !== undefined) {
    return {
      ...base,
      kind: 'condition',
      webhook: raw.condition as string,
      request: testRequest(raw.request),
      expect: raw.expect as boolean,
    };
  }
  if (raw.webhook !== undefined) {
    return {
      ...base,
      kind: 'webhook',
      webhook: raw.webhook as string,
      request: testRequest(raw.request),
      ...systems,
      expect: raw.expect as Extract<TestCase, { kind: 'webhook' }>['expect'],
    };
  }
  return {
    ...base,
    kind: 'sync',
    sync: raw.sync as string,
    ...params,
    ...(raw.where === undefined ? {} : { where: raw.where as string }),
    ...systems,
    expect: raw.expect as Extract<TestCase, { kind: 'sync' }>['expect'],
  };
}

/** Values as text: ActionParams, headers and query parameters arrive as text, whatever YAML made of them. */
function textValues(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, String(value)]));
}

function testRequest(raw: unknown): TestRequest {
  const request = (raw ?? {}) as Record<string, unknown>;
  const query = request.query as Record<string, unknown> | undefined;
  return {
    ...(request.method === undefined ? {} : { method: request.method as string }),
    ...(request.headers === undefined ? {} : { headers: textValues(request.headers as Record<string, unknown>) }),
    ...(query === undefined
      ? {}
      : {
          query: Object.fromEntries(
            Object.entries(query).map(([name, value]) => [name, Array.isArray(value) ? value.map(String) : String(value)]),
          ),
        }),
    ...(request.body === undefined ? {} : { body: request.body }),
  };
}

/** The sync, webhook, systems and objects a case names, checked against the definitions under test. */
function referenceProblems(source: SourceDocument, index: number, testCase: TestCase, snapshot: Snapshot): Problem[] {
  const problems: Problem[] = [];
  const at = (path: readonly PathSegment[]) => ['cases', index, ...path];
  const unknown = (path: readonly PathSegment[], what: string, id: string, known: readonly string[], key = false) => {
    const guess = closest(id, known);
    const hint = guess
      ? `; did you mean '${guess}'?`
      : known.length > 0
        ? ` (defined: ${list([...known].sort())})`
        : ` (no ${what} is defined)`;
    problems.push(problemAt(source, at(path), 'unknown-reference', `${displayPath(at(path))}: unknown ${what} '${id}'${hint}`, { key }));
  };
  if (testCase.kind === 'condition' || testCase.kind === 'webhook') {
    if (!snapshot.webhooks.has(testCase.webhook)) unknown([testCase.kind], 'Webhook', testCase.webhook, [...snapshot.webhooks.keys()]);
  } else if (!snapshot.syncs.has(testCase.sync)) {
    unknown([testCase.kind], 'Sync', testCase.sync, [...snapshot.syncs.keys()]);
  }
  if (testCase.kind === 'webhook' || testCase.kind === 'sync') {
    const rowSets: Array<[PathSegment[], SystemRows | undefined]> = [
      [['systems'], testCase.systems],
      [['expect', 'systems'], testCase.expect.systems],
    ];
    for (const [path, rows] of rowSets) {
      for (const [systemId, objects] of Object.entries(rows ?? {})) {
        const system = snapshot.systems.get(systemId);
        if (system === undefined) {
          unknown([...path, systemId], 'System', systemId, [...snapshot.systems.keys()], true);
          continue;
        }
        const declared = Object.keys(system.definition.objects ?? {});
        for (const object of Object.keys(objects)) {
          if (declared.includes(object)) continue;
          const guess = closest(object, declared);
          const hint = guess
            ? `; did you mean '${guess}'?`
            : declared.length > 0
              ? ` (it has: ${list(declared)})`
              : ' (it declares no objects)';
          const where = at([...path, systemId, object]);
          problems.push(
            problemAt(source, where, 'unknown-reference', `${displayPath(where)}: System '${systemId}' has no object '${object}'${hint}`, {
              key: true,
            }),
          );
        }
      }
    }
  }
  return problems;
}
