/**
 * The HTTP load of the benchmarks: autocannon with the same settings for every server of a
 * comparison, and every answer checked (status and, where given, the body byte for byte).
 */
import { createRequire } from 'node:module';

/** The part of autocannon's API used here (it ships no types). */
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average?: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
}
type Autocannon = (options: Record<string, unknown>, done: (error: Error | null, result: LoadResult) => void) => unknown;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadRequest {
  method: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadSettings {
  connections: number;
  pipelining: number;
}

/** `duration` seconds of `request` against `url`; answers whose body is not `expectBody` count as mismatches. */
export function load(
  url: string,
  duration: number,
  request: LoadRequest,
  settings: LoadSettings,
  expectBody?: string,
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    autocannon({ url, duration, ...settings, ...request, ...(expectBody === undefined ? {} : { expectBody }) }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** The result, or an error when any answer was wrong or nothing was answered. */
export function checked(name: string, result: LoadResult): LoadResult {
  const bad = result.errors + result.timeouts + result.non2xx + result.mismatches;
  if (bad > 0 || result.requests.total === 0) {
    throw new Error(
      `${name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx, ${result.mismatches} wrong bodies of ${result.requests.total}`,
    );
  }
  return result;
}
