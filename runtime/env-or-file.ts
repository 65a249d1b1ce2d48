/**
 * A setting that may hold a secret, from its variable or from a file: `SYNCLINE_DB` or
 * `SYNCLINE_DB_FILE`, `SYNCLINE_ADMIN_TOKEN` or `SYNCLINE_ADMIN_TOKEN_FILE` — the convention of
 * Docker and Kubernetes secrets, which arrive as files (/run/secrets/…) so that a password never
 * stands in the environment of the process or in a compose file. An empty variable counts as
 * unset; one trailing newline of the file is dropped, as `${file:…}` drops it.
 */
import { readFileSync } from 'node:fs';

export class EnvOrFileError extends Error {}

export interface EnvValue {
  value: string;
  /** Where it came from, for messages: `SYNCLINE_DB`, or `SYNCLINE_DB_FILE (/run/secrets/db-url)`. */
  source: string;
}

export function envOrFile(env: Readonly<Record<string, string | undefined>>, name: string): EnvValue | undefined {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  const given = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';
  if (given(direct) && given(file)) throw new EnvOrFileError(`${name} and ${name}_FILE are both set; set one of them`);
  if (given(direct)) return { value: direct, source: name };
  if (!given(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new EnvOrFileError(`${name}_FILE: cannot read '${file}' (${code}); point it at a readable file holding the value`);
  }
  const value = text.replace(/\r?\n$/, '');
  if (value.trim() === '') throw new EnvOrFileError(`${name}_FILE: '${file}' is empty`);
  return { value, source: `${name}_FILE (${file})` };
}
