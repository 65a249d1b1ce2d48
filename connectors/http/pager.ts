/**
 * The requests of one read of a list, page after page, by the object's paging style — pure state,
 * no I/O: the reader sends what `first()` and `next()` say and reports what each answer held.
 *
 * - offset: `offset=<start + received>&limit=<size>`; the offset moves by what was received, so an
 *   API giving fewer than asked loses nothing.
 * - page: `page=<first + n>&size=<size>` with one size throughout (page numbers count pages of it);
 *   a start inside a page is reached by passing over `drop` records of the first answer. An API may
 *   answer fewer per page than asked (a page size of its own): its pages are then numbered by its
 *   size, which reading from the start follows page after page; a start reached by page numbers of
 *   the size asked is then another record, which is a PagingSizeError rather than a wrong answer.
 * - cursor: `limit=<size>`, then `cursor=<the answer's cursor>&limit=<size>` until none is given.
 * - link: the list request, then each answer's next URL (a Link header's rel="next", or one in the
 *   body) as it is, until none is given.
 * - none: one request.
 *
 * The end: an empty page (any style: an API may still name a next page after its last record); the
 * total reached, counting records received, when the API tells it; a page shorter than the most
 * an earlier page held (page: the API's own page size, whatever was asked); no next cursor or link;
 * or `want` records received. The same cursor or link twice would read forever: that is a
 * PagingLoopError.
 */
import type { Paging } from './http-object.js';

export interface PagerWindow {
  /** Records asked for per request at most. */
  size: number;
  /** Records of the list to pass over before the first one wanted (pushed down: offset and page only). */
  start: number;
  /** Records wanted in all after `start`; Infinity for all of them. */
  want: number;
}

export interface PageRequest {
  /** A next link to follow as it is; undefined: the list path, with `query`. */
  url?: string;
  query: Record<string, string | number>;
}

export interface PageAnswer {
  /** Records the answer held. */
  count: number;
  total?: number | undefined;
  /** cursor: the next cursor as text; undefined or '' when none. */
  cursor?: string | undefined;
  /** link: the next page's URL, resolved; undefined when none. */
  next?: string | undefined;
}

export class PagingLoopError extends Error {}

/** The API pages by another size than asked, so page numbers computed for a start point elsewhere. */
export class PagingSizeError extends Error {}

export class Pager {
  /** Records of the first answer to pass over (page: a start inside the first page asked). */
  readonly drop: number;
  private readonly size: number;
  private received = 0;
  private pageIndex: number;
  /** page: the index of the first page asked, from which the records received are counted. */
  private readonly firstIndex: number;
  /** page: the most records one answer has held, the API's own page size as far as it shows it. */
  private served = 0;
  private readonly seen = new Set<string>();

  constructor(
    private readonly paging: Paging,
    private readonly window: PagerWindow,
  ) {
    if (paging.style === 'page') {
      // Page numbers count pages of one size: a smaller one is only right when reading from the start.
      this.size = window.start === 0 ? Math.max(1, Math.min(window.size, window.want)) : window.size;
      this.pageIndex = Math.floor(window.start / this.size);
      this.drop = window.start % this.size;
    } else {
      this.size = window.size;
      this.pageIndex = 0;
      this.drop = 0;
    }
    this.firstIndex = this.pageIndex;
  }

  /** Records still wanted after those received (the first answer's `drop` not counted). */
  private remaining(): number {
    return this.window.want - Math.max(0, this.received - this.drop);
  }

  first(): PageRequest {
    const { paging } = this;
    switch (paging.style) {
      case 'offset':
        return { query: { [paging.offsetParam]: this.window.start, [paging.limitParam]: this.askFor() } };
      case 'page':
        return { query: { [paging.pageParam]: paging.firstPage + this.pageIndex, [paging.sizeParam]: this.size } };
      case 'cursor':
        return { query: { [paging.sizeParam]: this.askFor() } };
      case 'link':
        return { query: paging.sizeParam === undefined ? {} : { [paging.sizeParam]: this.askFor() } };
      case 'none':
        return { query: {} };
    }
  }

  /** The request after an answer, or undefined when the read is over. */
  next(answer: PageAnswer): PageRequest | undefined {
    const { paging } = this;
    this.received += answer.count;
    if (this.remaining() <= 0) return undefined;
    switch (paging.style) {
      case 'offset': {
        const offset = this.window.start + this.received;
        if (answer.count === 0 || (answer.total !== undefined && offset >= answer.total)) return undefined;
        return { query: { [paging.offsetParam]: offset, [paging.limitParam]: this.askFor() } };
      }
      case 'page': {
        if (answer.count === 0) return undefined;
        const shorter = this.served > 0 && answer.count < this.served;
        // A page longer than asked, or shorter and not the last: the API pages by a size of its own.
        const ownSize =
          answer.count > this.size ||
          (this.served > 0 && this.served < this.size) ||
          (answer.count < this.size && answer.total !== undefined && this.firstIndex * this.size + this.received < answer.total);
        if (ownSize && this.firstIndex > 0) {
          throw new PagingSizeError(
            `the API answers ${Math.max(this.served, answer.count)} records per page where ${this.size} were asked`,
          );
        }
        this.served = Math.max(this.served, answer.count);
        this.pageIndex += 1;
        if (shorter || (answer.total !== undefined && this.firstIndex * this.size + this.received >= answer.total)) return undefined;
        return { query: { [paging.pageParam]: paging.firstPage + this.pageIndex, [paging.sizeParam]: this.size } };
      }
      case 'cursor': {
        if (answer.count === 0 || answer.cursor === undefined || answer.cursor === '') return undefined;
        this.once(answer.cursor, 'cursor');
        return { query: { [paging.cursorParam]: answer.cursor, [paging.sizeParam]: this.askFor() } };
      }
      case 'link': {
        if (answer.count === 0 || answer.next === undefined) return undefined;
        this.once(answer.next, 'next link');
        return { url: answer.next, query: {} };
      }
      case 'none':
        return undefined;
    }
  }

  /** The size of the next request: no more than still wanted. */
  private askFor(): number {
    return Math.max(1, Math.min(this.size, this.remaining()));
  }

  private once(value: string, what: string): void {
    if (this.seen.has(value)) throw new PagingLoopError(`the same ${what} came twice`);
    this.seen.add(value);
  }
}
