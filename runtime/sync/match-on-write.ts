/**
 * When a run leaves a page's batched match search to its writes. Under the default match rules —
 * create what is not found, update what is, fail a record that finds several — a record's
 * request is the same whatever the search finds: its values, matched by its match values
 * (match-plan.ts `equalityValues`). A target whose writeMany looks those matches up itself, a
 * chunk at a time and inside the transaction that writes them (Connection.findsMatchesInBatch),
 * then gives every outcome the search would: a create, an update, or a refusal. So the page is
 * written without searching first — one lookup per page instead of two.
 *
 * A record the writes refuse (several records match, a value that does not fit, a match value
 * the target cannot search for) was not written; it goes through the search after all
 * (run-sync.ts), which fails it, skips it or writes it exactly as a run searching first does, in
 * its own words ("match search: …", "3 records of … match …"). So does a whole page the target
 * refused for a value in it, since then nothing of the page was written.
 *
 * Records a search finds may already hold their values, and are then left unwritten
 * (unchanged-writes.ts). A target that compares them itself, inside its writes
 * (Connection.leavesUnchanged), is written first from the first page on, each write marked
 * `leaveUnchanged`. Any other starts by searching, and writes first only after a page whose
 * search matched nothing (run-sync.ts `writeFirst`).
 *
 * Not for a dry run (it needs each record's match to plan the update), nor under any other
 * rule: onNoMatch or onMatch skip, and onMultipleMatches other than fail, decide by what is found.
 */
import type { SyncDefinition } from '../../definitions/types.js';
import type { RunWriter } from './run-writer.js';

export function matchesOnWrite(definition: SyncDefinition, writer: RunWriter): boolean {
  const match = definition.match;
  return (
    writer.findsMatches === true &&
    writer.planned === undefined &&
    match !== undefined &&
    match.onNoMatch === 'create' &&
    match.onMatch === 'update' &&
    match.onMultipleMatches === 'fail'
  );
}
