/**
 * The examples of README.md and docs/ as the tests replay them: the YAML blocks of a page, and
 * the curl lines of a shell block turned into the requests curl would send, with the status the
 * line's comment promises. A reader copies these blocks into a terminal, so the tests read them
 * exactly as written.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

/** A page's text, by its path from the repository root (`docs/webhooks.md`). */
export function page(path: string): string {
  return readFileSync(join(repoRoot, path), 'utf8');
}

/** Every Markdown page under docs/, as paths from the repository root, sorted. */
export function docsPages(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(relative(repoRoot, path));
    }
  };
  walk(join(repoRoot, 'docs'));
  return found.sort();
}

export function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** The variables the YAML examples of docs/ read, as a reader would set them. */
const docsVariables = {
  SHOP_DATABASE_URL: 'postgres://shop@localhost/shop',
  SHOP_WEBHOOK_SECRET: 'docs-secret',
  ERP_INTEGRATION_TOKEN: 'docs-token-0123456789',
  PARTNER_SIGNING_SECRET: 'docs-signing-secret',
};

/**
 * Every YAML example of docs/ as a definition file (`docs-<page>-<n>.yaml`; a test file's example
 * as `docs-<page>-<n>.test.yaml`), with the environment
 * they load in. Secrets the examples read from an orchestrator's mount (`${file:/run/secrets/…}`)
 * are read from a scratch directory standing in for it, listed in SYNCLINE_SECRET_DIRS as an
 * operator would list /run/secrets, with a file for each name.
 */
export function docsDefinitionFiles(): { files: Record<string, string>; env: Record<string, string>; mount: string } {
  const mount = mkdtempSync(join(tmpdir(), 'syncline-docs-secrets-'));
  const files: Record<string, string> = {};
  for (const path of docsPages()) {
    for (const [index, block] of yamlBlocks(page(path)).entries()) {
      for (const [, name] of block.matchAll(/\$\{file:\/run\/secrets\/([\w.-]+)\}/g)) {
        mkdirSync(mount, { recursive: true });
        writeFileSync(join(mount, name!), `docs-${name}\n`);
      }
      // A test file's example keeps a test file's name, so it is read as one (never as a definition).
      const extension = /^kind: Test$/m.test(block) ? 'test.yaml' : 'yaml';
      files[`${path.replaceAll('/', '-')}-${index}.${extension}`] = block.replaceAll('${file:/run/secrets/', `\${file:${mount}/`);
    }
  }
  return { files, env: { ...docsVariables, SYNCLINE_SECRET_DIRS: mount }, mount };
}

/** The shell blocks of a page whose text contains `marker`. */
export function shellBlocks(markdown: string, marker: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!).filter((block) => block.includes(marker));
}

export interface CurlCall {
  line: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  status: number;
  /** The problem code the comment names. */
  code?: string;
}

/** One step of a shell block: a curl call, or a variable set from a curl call's output piped through `node -pe`. */
export type ShellStep = { kind: 'curl'; call: CurlCall } | { kind: 'capture'; name: string; call: CurlCall; nodeExpression: string };

/**
 * The steps of a shell block as the shell would run them: `NAME=value` and `export NAME=value` set
 * variables, `NAME=$(curl … | node -pe '…')` sets one from a call's output, `'…'` is literal,
 * `"…"` and bare words expand `$NAME`, `-H` adds a header, `-d` sends a POST body (as a form
 * unless a Content-Type is given), and a call's comment starts with the expected status.
 */
export function shellSteps(block: string, variables: Record<string, string> = {}): ShellStep[] {
  const steps: ShellStep[] = [];
  for (const line of block.split('\n')) {
    const capture = /^([A-Za-z_]\w*)=\$\((curl .*) \| node -pe '([^']*)'\)$/.exec(line);
    if (capture) {
      const call = curlCall(shellWords(capture[2]!, variables).words, line, 200);
      steps.push({ kind: 'capture', name: capture[1]!, call, nodeExpression: capture[3]! });
      // A placeholder the test replaces with the captured value once it has run the call.
      variables[capture[1]!] = `\u0000${capture[1]!}\u0000`;
      continue;
    }
    const words = shellWords(line, variables);
    if (words.words[0] === 'export') words.words.shift();
    if (words.words.length === 0) continue;
    const assignment = /^([A-Za-z_]\w*)=(.*)$/s.exec(words.words[0]!);
    if (words.words.length === 1 && assignment) {
      variables[assignment[1]!] = assignment[2]!;
      continue;
    }
    const expected = /^(\d{3})(?:\s+([a-z][a-z-]*[a-z]))?/.exec(words.comment.trim());
    assert.ok(expected, `the line's comment names the status: ${line}`);
    const call = curlCall(words.words, line, Number(expected[1]));
    if (expected[2]?.includes('-')) call.code = expected[2];
    steps.push({ kind: 'curl', call });
  }
  return steps;
}

/** The curl calls of a block that only holds curl lines and assignments. */
export function curlLines(block: string): CurlCall[] {
  return shellSteps(block).map((step) => {
    assert.equal(step.kind, 'curl', `a plain curl line: ${step.call.line}`);
    return step.call;
  });
}

/** Replaces the placeholder of a captured variable (see shellSteps) with its value. */
export function withCaptured(call: CurlCall, captured: Record<string, string>): CurlCall {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks a placeholder no documented text can contain.
  const fill = (text: string) => text.replace(/\u0000(\w+)\u0000/g, (_, name: string) => captured[name] ?? '');
  return {
    ...call,
    url: fill(call.url),
    headers: Object.fromEntries(Object.entries(call.headers).map(([k, v]) => [k, fill(v)])),
    ...(call.body === undefined ? {} : { body: fill(call.body) }),
  };
}

function curlCall(words: string[], line: string, status: number): CurlCall {
  assert.equal(words[0], 'curl', line);
  const call: CurlCall = { line, method: 'GET', url: '', headers: {}, status };
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index]!;
    if (word === '-H') {
      const header = words[++index]!;
      const colon = header.indexOf(':');
      call.headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (word === '-d') {
      call.body = words[++index]!;
      call.method = 'POST';
    } else if (word === '-X') {
      call.method = words[++index]!;
    } else if (word.startsWith('-')) {
    } else {
      call.url = word;
    }
  }
  if (call.body !== undefined) call.headers['content-type'] ??= 'application/x-www-form-urlencoded';
  return call;
}

function shellWords(line: string, variables: Record<string, string>): { words: string[]; comment: string } {
  const expand = (text: string) => text.replace(/\$(\w+)/g, (_, name: string) => variables[name] ?? '');
  const words: string[] = [];
  let current: string | undefined;
  let index = 0;
  while (index < line.length) {
    const char = line[index]!;
    if (char === "'") {
      const end = line.indexOf("'", index + 1);
      current = (current ?? '') + line.slice(index + 1, end);
      index = end + 1;
    } else if (char === '"') {
      const end = line.indexOf('"', index + 1);
      current = (current ?? '') + expand(line.slice(index + 1, end));
      index = end + 1;
    } else if (char === ' ' || char === '\t') {
      if (current !== undefined) words.push(current);
      current = undefined;
      index += 1;
    } else if (char === '#' && current === undefined) {
      return { words, comment: line.slice(index + 1) };
    } else {
      const match = /^[^\s'"]+/.exec(line.slice(index))![0];
      current = (current ?? '') + expand(match);
      index += match.length;
    }
  }
  if (current !== undefined) words.push(current);
  return { words, comment: '' };
}
