/**
 * The snapshot: every definition of one consistent state of the definitions directory, checked and
 * compiled (expressions parsed, JSONata compiled, request schemas compiled), then frozen. Code in
 * the runtime reads a snapshot and never re-checks a definition; hot reload swaps whole snapshots.
 */
import type { ValidateFunction } from 'ajv';
import type { Expression as Mapping } from 'jsonata';
import type { ConnectorCapabilities } from './connector-spec.js';
import type { Expression } from './expression/index.js';
import type { OrderTerm } from './order/parse-order.js';
import type { ApiClientDefinition, FlowDefinition, SyncDefinition, SystemDefinition, WebhookDefinition } from './types.js';

/** Where a definition was written: for messages and the console. */
export interface Origin {
  file: string;
  line: number;
  column: number;
}

export interface SystemEntry {
  readonly definition: SystemDefinition;
  readonly origin: Origin;
  /** What the system's connector can do, from the spec the definition was checked against. */
  readonly capabilities: Readonly<ConnectorCapabilities>;
}

/** A sync's checked `source.cursor`: what an incremental run reads past (runtime/sync/sync-cursor.ts). */
export interface SyncCursor {
  readonly field: string;
  readonly type: 'DateTime' | 'Date' | 'Integer';
  /** Timestamps: how far before the mark a run reads again; 0 for Integer. */
  readonly lookBackMs: number;
}

export interface SyncEntry {
  readonly definition: SyncDefinition;
  readonly origin: Origin;
  readonly cursor?: SyncCursor;
  readonly where?: Expression;
  readonly order?: readonly OrderTerm[];
  readonly precondition?: Expression;
  readonly matchWhere?: Expression;
  readonly mapping: Mapping;
}

export interface WebhookEntry {
  readonly definition: WebhookDefinition;
  readonly origin: Origin;
  readonly condition?: Expression;
  readonly search?: Expression;
  readonly order?: readonly OrderTerm[];
  readonly targetSearch?: Expression;
  readonly queryFilter?: Expression;
  readonly readMapping?: Mapping;
  readonly writeMapping?: Mapping;
  readonly resultMapping?: Mapping;
  readonly validateRequest?: ValidateFunction;
}

export interface FlowEntry {
  readonly definition: FlowDefinition;
  readonly origin: Origin;
}

export interface ApiClientEntry {
  /** The definition without its plain token. */
  readonly definition: Omit<ApiClientDefinition, 'token'>;
  readonly origin: Origin;
  /** SHA-256 of the bearer token, compared in constant time. */
  readonly tokenHash: Buffer;
}

export interface Snapshot {
  /** SHA-256 over the definition files' paths and contents: equal digests, equal definitions. */
  readonly digest: string;
  readonly loadedAt: Date;
  readonly files: readonly string[];
  readonly systems: ReadonlyMap<string, SystemEntry>;
  readonly syncs: ReadonlyMap<string, SyncEntry>;
  readonly webhooks: ReadonlyMap<string, WebhookEntry>;
  readonly flows: ReadonlyMap<string, FlowEntry>;
  readonly apiClients: ReadonlyMap<string, ApiClientEntry>;
}

/** Freezes plain definition data all the way down (compiled artefacts stay as the libraries made them). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as Record<string, unknown>)) deepFreeze(child);
  }
  return value;
}

/** A read-only Map: `set`, `delete` and `clear` throw, so a snapshot cannot be patched in place. */
export function frozenMap<K, V>(entries: Iterable<readonly [K, V]>): ReadonlyMap<K, V> {
  const map = new Map<K, V>(entries as Iterable<[K, V]>);
  const refuse = () => {
    throw new TypeError('a snapshot is immutable; build a new one');
  };
  Object.defineProperties(map, { set: { value: refuse }, delete: { value: refuse }, clear: { value: refuse } });
  return Object.freeze(map);
}
