/**
 * What `syncline run` and `syncline run --dry-run` both check before they start: the definitions
 * load, the id names a sync or a flow, `--param` is `Name=Value`, `--where` parses against the
 * sync. `--full` is the action parameter FULL_RUN=true. A problem is one `error: …` line on standard error and exit code 2 (1 for definitions with
 * problems, as every command that loads them).
 */
import type { Expression } from '../../definitions/expression/index.js';
import type { Snapshot } from '../../definitions/snapshot.js';
import type { ActionParam } from '../queue/queue-item.js';
import { defaults, SettingsError } from '../settings.js';
import { FULL_RUN_PARAM } from '../sync/sync-cursor.js';
import { parseWhereClause, WhereClauseError } from '../sync/where-clause.js';
import { loadCommandDefinitions } from './load-command-definitions.js';

export interface RunFlags {
  definitions?: string;
  db?: string;
  where?: string;
  param?: string[];
  /** A sync with a cursor reads everything (the action parameter FULL_RUN=true). */
  full?: boolean;
  dryRun?: boolean;
  format?: string;
  verbose?: boolean;
}

export interface RunStart {
  definitionsDir: string;
  snapshot: Snapshot;
  actionParams: ActionParam[];
  /** `--where`, parsed. */
  whereClause: Expression | undefined;
}

/** `Name=Value` → an ActionParam; the first `=` separates, so values may hold more. */
function parseParam(text: string): ActionParam {
  const at = text.indexOf('=');
  if (at <= 0) throw new SettingsError(`--param must be Name=Value, not '${text}'`);
  return { Name: text.slice(0, at), Value: text.slice(at + 1) };
}

/** The definitions and parameters of a run of `processId`, or the exit code after saying why there are none. */
export async function prepareRun(processId: string, flags: RunFlags, notDoing: string): Promise<RunStart | number> {
  const definitionsDir = flags.definitions ?? process.env.SYNCLINE_DEFINITIONS ?? defaults.definitions;
  let actionParams: ActionParam[];
  try {
    actionParams = (flags.param ?? []).map(parseParam);
    if (flags.full) actionParams.push({ Name: FULL_RUN_PARAM, Value: 'true' });
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
  const loaded = await loadCommandDefinitions(definitionsDir, notDoing);
  if (typeof loaded === 'number') return loaded;
  const { snapshot } = loaded;
  if (!snapshot.syncs.has(processId) && !snapshot.flows.has(processId)) {
    const known = [...snapshot.syncs.keys(), ...snapshot.flows.keys()];
    process.stderr.write(`error: there is no sync or flow '${processId}' in ${definitionsDir}; known: ${known.join(', ') || 'none'}\n`);
    return 2;
  }
  let whereClause: Expression | undefined;
  if (flags.where !== undefined) {
    try {
      whereClause = parseWhereClause(snapshot, processId, flags.where);
    } catch (error) {
      if (!(error instanceof WhereClauseError)) throw error;
      process.stderr.write(`error: --where: ${error.message}\n`);
      return 2;
    }
  }
  return { definitionsDir, snapshot, actionParams, whereClause };
}
