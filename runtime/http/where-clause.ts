/**
 * A WhereClause from AddAction or ExecuteProcess, parsed against its sync (a flow's: its first
 * sync's) before the item exists: a filter that cannot run would otherwise become a Failed item
 * long after the caller left. The sync engine owns the grammar and the field check; this only
 * turns its refusal into a 400 pointing at /WhereClause.
 */
import type { Snapshot } from '../../definitions/snapshot.js';
import { HttpProblem } from '../errors.js';
import { parseWhereClause, WhereClauseError } from '../sync/where-clause.js';
import type { ProcessTarget } from './resolve-process.js';

export function checkWhereClause(snapshot: Snapshot, target: ProcessTarget, text: string): void {
  try {
    parseWhereClause(snapshot, target.id, text);
  } catch (error) {
    if (!(error instanceof WhereClauseError)) throw error;
    // The message names the column (and line) of the problem and how to fix it.
    throw new HttpProblem('invalid-request', error.message, { errors: [{ path: '/WhereClause', message: error.message }], cause: error });
  }
}
