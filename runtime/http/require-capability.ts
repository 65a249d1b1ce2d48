/**
 * What a connection route asks of the system's connector, checked against the capabilities its
 * spec declares before anything is read or written. The seed lets GETDATA_LIMIT, GETDATA_SKIP and
 * GETDATA_ORDER "apply only where the target system supports them"; a request that asks for one
 * where it does not is answered 422 naming the capability, not served as if it had not asked —
 * an unlimited or unordered answer to a request for a page would look right and be wrong.
 *
 * A filter needs no capability: a connector without filter push-down filters in memory.
 */
import type { ConnectorCapabilities } from '../../definitions/connector-spec.js';
import type { SystemEntry } from '../../definitions/snapshot.js';
import { HttpProblem } from '../errors.js';

export type Capability = keyof ConnectorCapabilities;

/** What the request asked for that needs `capability`, and where it asked. */
export interface CapabilityUse {
  capability: Capability;
  /** As the caller wrote it: `GETDATA_LIMIT`, `Limit`, `a typed group column`. */
  asked: string;
  /** JSON pointer into the body, or `path.name`. */
  path: string;
  /** What to do instead; default: leave `asked` out. */
  fix?: string;
}

/** What each capability lets a caller do, for the message. */
const meaning: Readonly<Record<Capability, string>> = Object.freeze({
  filterPushDown: 'filtering in the system',
  limit: 'limiting how many records are answered',
  skip: 'skipping records (paging)',
  order: 'ordering records',
  count: 'counting records',
  typedGroups: 'typed object groups',
  transactions: 'transactions',
  readOnlyQuery: 'free queries the database itself keeps from writing',
});

/** Refuses, in one 422 listing every one, the uses the system's connector cannot serve. */
export function requireCapabilities(system: SystemEntry, uses: readonly CapabilityUse[]): void {
  const lacking = uses.filter((use) => !system.capabilities[use.capability]);
  if (lacking.length === 0) return;
  const { id, connector } = system.definition;
  const sentence = (use: CapabilityUse) =>
    `${use.asked} needs the capability ${use.capability} (${meaning[use.capability]}), which the ${connector} connector of system ${id} does not have`;
  const fix = (use: CapabilityUse) => use.fix ?? `leave ${use.asked} out`;
  const detail = `${lacking.map((use) => `${sentence(use)}: ${fix(use)}`).join('; ')}.`;
  throw new HttpProblem('unsupported', detail, {
    errors: lacking.map((use) => ({ path: use.path, message: `${sentence(use)}: ${fix(use)}` })),
  });
}

/** The capabilities a system's connector lacks, in declaration order (for the interface description). */
export function lackingCapabilities(system: SystemEntry): Capability[] {
  return (Object.keys(system.capabilities) as Capability[]).filter((capability) => !system.capabilities[capability]);
}
