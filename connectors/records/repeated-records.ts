/**
 * The records one read of a paged list has passed on, known by their key, so that a system whose
 * pages repeat is stopped instead of read until the sync's time limit — an API that ignores its
 * offset or page parameter answers the same page for ever (or two pages in turn), and a read with
 * an order made in memory holds every copy. The rule, the same for each connector that pages:
 *
 * - A record whose key this read passed on already is passed over. Under offset or page paging a
 *   record inserted before the reading position moves the records after it one place on, so the
 *   last of one page comes again first on the next: the same record, which a read gives once.
 *   The key identifies one record (that is what it is declared for), so nothing else is lost.
 * - A page that brings more records of earlier pages than new ones is stale; STALE_PAGES in a row
 *   stop the read, the caller's `stop` naming the first repeated key. Records moved by inserts are
 *   a few per page, except on the last page: records inserted after the one before it can push
 *   records read already past the old end, into a page of nothing new, after which comes the empty
 *   page that ends the read. Stale page after stale page is a system ignoring the paging — one
 *   page again, two in turn, or one new record ahead of those it sent before — or a list growing
 *   ahead of the reading position faster than it is paged, which no read would see the end of.
 * - Records without a usable key (a key value missing, null, or no scalar) cannot be compared one
 *   by one: those of a page count together, as repeats when the very same run of them (a hash of
 *   their content, walked without recursion, so that a record nested thousands of levels deep is
 *   no RangeError) came on an earlier page, else as new.
 *
 * Memory: the keys of a streaming read would otherwise grow with the read (and a Set stops at
 * 2^24 entries), so they are kept in two generations of KEYS_PER_GENERATION: the latest 100,000
 * keys at least, 200,000 at most (16 MB for keys of up to 20 characters, measured). Moved records
 * are a page apart and paging faults repeat within a few pages; a system that repeats after
 * serving more than 100,000 distinct records is not caught.
 */
import { createHash } from 'node:crypto';

/** Keys remembered per generation; two generations are kept. */
export const KEYS_PER_GENERATION = 100_000;

/** Stale pages in a row that stop the read: one can be the last page of a list inserted into while read. */
export const STALE_PAGES = 2;

/** What a page brought again, for the connector's error. */
export interface RepeatedPage {
  /** The key values of the first record read on an earlier page, as text; undefined when that was a run of records without a key. */
  key: readonly string[] | undefined;
  /** Records of the last page read on earlier pages. */
  repeated: number;
  /** Records the last page held. */
  count: number;
}

type Kind = 'new' | 'repeated' | 'again' | 'keyless';

export class RepeatedRecords {
  private readonly keys = new RecentTexts();
  /** Hashes of the runs of records without a key, one per page that had any. */
  private readonly runs = new RecentTexts();
  private staleInRow = 0;

  /** `key`: the names of the properties holding each record's key, in key order. */
  constructor(private readonly key: readonly string[]) {}

  /**
   * The records of `page` to pass on, in their order: those whose key this read has not passed on
   * yet. Throws `stop(...)` when this page is the STALE_PAGES-th in a row with more records of
   * earlier pages than new ones.
   */
  fresh<T extends Record<string, unknown>>(page: readonly T[], stop: (repeat: RepeatedPage) => Error): T[] {
    const kinds: Kind[] = [];
    const onPage = new Set<string>();
    const keyless: T[] = [];
    let first: readonly string[] | undefined;
    let repeated = 0;
    for (const record of page) {
      const values = keyValues(record, this.key);
      if (values === undefined) {
        kinds.push('keyless');
        keyless.push(record);
        continue;
      }
      const text = values.length === 1 ? values[0]! : JSON.stringify(values);
      if (onPage.has(text)) {
        // The same key twice in one answer: no paging fault, so it does not count towards stopping.
        kinds.push('again');
      } else if (this.keys.has(text)) {
        kinds.push('repeated');
        first ??= values;
        repeated += 1;
      } else {
        kinds.push('new');
        onPage.add(text);
      }
    }
    const run = keyless.length === 0 ? undefined : fingerprint(keyless);
    const runRepeated = run !== undefined && this.runs.has(run);
    if (runRepeated) repeated += keyless.length;
    const kept = page.filter((_, index) => kinds[index] === 'new' || (kinds[index] === 'keyless' && !runRepeated));
    this.staleInRow = repeated > kept.length ? this.staleInRow + 1 : 0;
    if (this.staleInRow >= STALE_PAGES) throw stop({ key: first, repeated, count: page.length });
    for (const text of onPage) this.keys.add(text);
    if (run !== undefined) this.runs.add(run);
    return kept;
  }
}

/** The latest texts added: two generations of KEYS_PER_GENERATION, the older dropped as a third begins. */
class RecentTexts {
  private current = new Set<string>();
  private previous = new Set<string>();

  has(text: string): boolean {
    return this.current.has(text) || this.previous.has(text);
  }

  add(text: string): void {
    if (this.current.size >= KEYS_PER_GENERATION) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(text);
  }
}

/** The record's key values as text (7 and '7' alike, as records compare them), or undefined when one is missing, null or no scalar. */
function keyValues(record: Record<string, unknown>, key: readonly string[]): string[] | undefined {
  const values: string[] = [];
  for (const name of key) {
    const value = Object.hasOwn(record, name) ? record[name] : undefined;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
    values.push(String(value));
  }
  return values;
}

/**
 * A hash of JSON values, walked with a stack of its own: every value is written with its kind and
 * length ahead, so that two different values cannot write the same text.
 */
function fingerprint(values: readonly unknown[]): string {
  const hash = createHash('sha1');
  const pending: unknown[] = [values];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      hash.update(`a${value.length};`);
      for (let index = value.length - 1; index >= 0; index -= 1) pending.push(value[index]);
    } else if (typeof value === 'object' && value !== null) {
      const names = Object.keys(value);
      hash.update(`o${names.length};`);
      for (const name of names) hash.update(`${name.length}:${name}`);
      for (let index = names.length - 1; index >= 0; index -= 1) pending.push((value as Record<string, unknown>)[names[index]!]);
    } else {
      const text = String(value);
      hash.update(`${typeof value}${text.length}:${text}`);
    }
  }
  return hash.digest('base64');
}

/** `Item id 7`, `Line order 7, line "A 2"`: a repeated key for a message, a value that is no plain word quoted, each cut to 40 characters. */
export function describeKey(objectName: string, key: readonly string[], values: readonly string[]): string {
  const shown = values.map((value) => {
    const cut = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return /^[\w.@:+-]+$/.test(value) && value.length <= 40 ? value : JSON.stringify(cut);
  });
  return `${objectName} ${key.map((name, index) => `${name} ${shown[index]}`).join(', ')}`;
}
