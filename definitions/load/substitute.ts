/**
 * `${env:NAME}`, `${env:NAME:-default}` and `${file:path}` in scalar values, substituted on the
 * YAML node tree so that every error still knows its line and column. `$${` writes a literal `${`.
 * An unset variable without a default is an error naming the variable — never an empty string.
 *
 * `${file:…}` reads files inside the definitions directory, and inside the directories the
 * environment's SYNCLINE_SECRET_DIRS lists (where an orchestrator mounts secrets, such as
 * /run/secrets): nothing else, judged on the real path, so neither `..` nor a symbolic link leaves
 * them.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, resolve, sep } from 'node:path';
import { isMap, isPair, isScalar, isSeq, type Node } from 'yaml';
import type { Problem } from '../problem.js';
import { positionAtOffset, scalarCharacterOffset, type SourceDocument } from './source-document.js';

export interface SubstitutionContext {
  env: Readonly<Record<string, string | undefined>>;
}

/** Largest file `${file:..}` reads: it is meant for secrets and certificates, not data. */
const maxSubstitutedFileBytes = 1024 * 1024;
const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const usage = 'use ${env:NAME}, ${env:NAME:-default} or ${file:path}';

/** The codes of the problems a substitution reports. */
export const substitutionCodes: ReadonlySet<string> = new Set([
  'substitution',
  'env-unset',
  'file-missing',
  'file-outside',
  'file-too-large',
]);

interface SubstitutionError {
  /** Offset inside the scalar's value. */
  offset: number;
  code: string;
  message: string;
}

export function substituteDocument(source: SourceDocument, context: SubstitutionContext): Problem[] {
  const problems: Problem[] = [];
  const visit = (node: unknown): void => {
    if (isMap(node)) for (const pair of node.items) visit(isPair(pair) ? pair.value : null);
    else if (isSeq(node)) for (const item of node.items) visit(item);
    else if (isScalar(node) && typeof node.value === 'string' && node.value.includes('${')) {
      const original = node.value;
      const { value, errors } = expand(original, source, context);
      node.value = value;
      source.substituted.add(node as Node);
      for (const error of errors) problems.push(problemInScalar(source, node as Node, original, error));
      if (errors.length > 0 && node.range) source.unresolved.push([node.range[0], node.range[1]]);
    }
  };
  visit(source.document.contents);
  return problems;
}

function problemInScalar(source: SourceDocument, node: Node, original: string, error: SubstitutionError): Problem {
  const offset = scalarCharacterOffset(source, node.range ?? [0, 0, 0], original, error.offset);
  const { line, column } = positionAtOffset(source, offset);
  return { file: source.file, line, column, kind: source.kind, id: source.id, code: error.code, message: error.message };
}

/** Expands the substitutions of one string; the value with errors left in place as written. */
export function expand(
  text: string,
  source: Pick<SourceDocument, 'absolutePath' | 'root'>,
  context: SubstitutionContext,
): { value: string; errors: SubstitutionError[] } {
  const errors: SubstitutionError[] = [];
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      out += '${';
      i += 3;
      continue;
    }
    if (!text.startsWith('${', i)) {
      out += text[i++];
      continue;
    }
    const end = text.indexOf('}', i + 2);
    if (end < 0) {
      errors.push({
        offset: i,
        code: 'substitution',
        message: `unterminated '\${' — close it with '}' (${usage}; write $\${ for a literal \${)`,
      });
      out += text.slice(i);
      break;
    }
    const body = text.slice(i + 2, end);
    const result = resolveOne(body, source, context);
    if ('error' in result) {
      errors.push({ offset: i, code: result.code, message: result.error });
      out += text.slice(i, end + 1);
    } else {
      out += result.value;
    }
    i = end + 1;
  }
  return { value: out, errors };
}

type Resolution = { value: string } | { error: string; code: string };

function resolveOne(body: string, source: Pick<SourceDocument, 'absolutePath' | 'root'>, context: SubstitutionContext): Resolution {
  if (body.startsWith('env:')) {
    const spec = body.slice(4);
    const split = spec.indexOf(':-');
    const name = split >= 0 ? spec.slice(0, split) : spec;
    if (!variableName.test(name)) {
      return { code: 'substitution', error: `'\${${body}}' does not name an environment variable (letters, digits and '_'); ${usage}` };
    }
    const value = context.env[name];
    // As in the shell, ':-' also applies when the variable is set but empty.
    if (value !== undefined && (value !== '' || split < 0)) return { value };
    if (split >= 0) return { value: spec.slice(split + 2) };
    return { code: 'env-unset', error: `environment variable ${name} is not set; set it, or give a default with \${env:${name}:-value}` };
  }
  if (body.startsWith('file:')) return readSubstitutedFile(body.slice(5), source, context);
  return { code: 'substitution', error: `unknown substitution '\${${body}}'; ${usage}` };
}

/** The setting naming the directories besides the definitions directory that `${file:…}` may read. */
export const secretDirsSetting = 'SYNCLINE_SECRET_DIRS';

/** The absolute directories SYNCLINE_SECRET_DIRS lists (separated as PATH is); relative entries are ignored. */
export function secretDirectories(env: SubstitutionContext['env']): string[] {
  return (env[secretDirsSetting] ?? '').split(delimiter).filter((entry) => entry !== '' && isAbsolute(entry));
}

function inside(real: string, directory: string): boolean {
  return real === directory || real.startsWith(directory.endsWith(sep) ? directory : directory + sep);
}

function readSubstitutedFile(
  path: string,
  source: Pick<SourceDocument, 'absolutePath' | 'root'>,
  context: SubstitutionContext,
): Resolution {
  if (!path) return { code: 'substitution', error: `'\${file:}' needs a path, relative to the definition file` };
  const wanted = resolve(dirname(source.absolutePath), path);
  let real: string;
  let root: string;
  try {
    real = realpathSync(wanted);
    root = realpathSync(source.root);
  } catch {
    return { code: 'file-missing', error: `file '${path}' (${wanted}) does not exist` };
  }
  // Checked on real paths, so that neither '..' nor a symbolic link leaves the allowed directories.
  const secretDirs = secretDirectories(context.env).flatMap((directory) => {
    try {
      return [realpathSync(directory)];
    } catch {
      return [];
    }
  });
  if (!inside(real, root) && !secretDirs.some((directory) => inside(real, directory))) {
    const allowed = secretDirs.length > 0 ? ` or ${secretDirsSetting} (${secretDirs.join(', ')})` : '';
    return {
      code: 'file-outside',
      error: `file '${path}' is outside the definitions directory ${root}${allowed}; keep substituted files inside it, or list the directory that holds them in ${secretDirsSetting}`,
    };
  }
  const info = statSync(real);
  if (!info.isFile()) return { code: 'file-missing', error: `'${path}' is not a file` };
  if (info.size > maxSubstitutedFileBytes) {
    return { code: 'file-too-large', error: `file '${path}' has ${info.size} bytes; \${file:..} reads at most ${maxSubstitutedFileBytes}` };
  }
  // One trailing newline is dropped: secret files written by editors and `echo` end with one.
  return { value: readFileSync(real, 'utf8').replace(/\r?\n$/, '') };
}
