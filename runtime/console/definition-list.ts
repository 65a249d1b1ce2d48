/**
 * What the console shows of the loaded definitions and of the last reload: identity only (kind,
 * id, name, where it was written), never a definition's content — a System's connection holds
 * credentials, a Webhook's its secret.
 *
 * File names are relative to the definitions directory. The loader keeps them as the user gave
 * them (relative to the working directory, or absolute), and a path of the server's file system
 * tells a client more about the machine than it needs to find the file in its own checkout.
 */
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import type { ReloadStatus } from '../../definitions/snapshot-holder.js';
import { severityOf, type Problem, type Severity } from '../../definitions/problem.js';
import type { Origin, Snapshot } from '../../definitions/snapshot.js';
import type { DefinitionKind } from '../../definitions/types.js';
import type { Visibility } from './visibility.js';

export interface DefinitionSummary {
  id: string;
  name?: string;
  /** Relative to the definitions directory, with `/` as separator. */
  file: string;
  line: number;
  column: number;
}

export interface ProblemSummary {
  file: string;
  line: number;
  column: number;
  kind?: string;
  id?: string;
  code: string;
  message: string;
  severity: Severity;
}

export interface ReloadSummary {
  at: string;
  ok: boolean;
  durationMs: number;
  problems: ProblemSummary[];
  /** Problems left out because they belong to definitions the client may not see. */
  hiddenProblems: number;
}

/** Turns the paths the loader keeps into paths relative to the definitions directory. */
export class DefinitionsPaths {
  readonly #root: string;

  constructor(definitionsDir: string) {
    this.#root = resolve(definitionsDir);
  }

  file(file: string): string {
    const rel = relative(this.#root, resolve(file));
    if (rel === '') return '.';
    // Not below the directory (a single file given as the definitions): its name, never its place.
    if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return basename(file);
    return rel.split(sep).join('/');
  }

  /** A message with the directory's absolute path taken out of any path it names. */
  message(message: string): string {
    return message.replaceAll(`${this.#root}${sep}`, '');
  }
}

export function definitionList(
  snapshot: Snapshot,
  visible: Visibility,
  paths: DefinitionsPaths,
): Record<DefinitionKind, DefinitionSummary[]> {
  const summaries = <T extends { definition: { id: string; name?: string }; origin: Origin }>(
    entries: Iterable<T>,
    show: (entry: T) => boolean,
  ): DefinitionSummary[] =>
    [...entries].filter(show).map(({ definition, origin }) => ({
      id: definition.id,
      ...(definition.name === undefined ? {} : { name: definition.name }),
      file: paths.file(origin.file),
      line: origin.line,
      column: origin.column,
    }));
  return {
    System: summaries(snapshot.systems.values(), (entry) => visible.system(entry.definition.id)),
    Sync: summaries(snapshot.syncs.values(), (entry) => visible.sync(entry.definition.id)),
    Flow: summaries(snapshot.flows.values(), (entry) => visible.flow(entry.definition.id)),
    Webhook: summaries(snapshot.webhooks.values(), (entry) => visible.webhook(entry)),
    ApiClient: summaries(snapshot.apiClients.values(), () => visible.apiClients()),
  };
}

export function reloadSummary(status: ReloadStatus, visible: Visibility, paths: DefinitionsPaths): ReloadSummary {
  const shown = status.problems.filter((problem) => visible.problem(problem));
  return {
    at: status.at.toISOString(),
    ok: status.ok,
    durationMs: Math.round(status.durationMs),
    problems: shown.map((problem) => problemSummary(problem, paths)),
    hiddenProblems: status.problems.length - shown.length,
  };
}

function problemSummary(problem: Problem, paths: DefinitionsPaths): ProblemSummary {
  return {
    file: paths.file(problem.file),
    line: problem.line,
    column: problem.column,
    ...(problem.kind === undefined ? {} : { kind: problem.kind }),
    ...(problem.id === undefined ? {} : { id: problem.id }),
    code: problem.code,
    message: paths.message(problem.message),
    severity: severityOf(problem),
  };
}
