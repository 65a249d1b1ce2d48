/**
 * The paging state machines: what each style asks for first and next, where a read ends, a start
 * and a limit pushed into the API's paging, and a cursor or link that comes round again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Paging } from '../../../../connectors/http/http-object.js';
import { Pager, PagingLoopError, PagingSizeError, type PageAnswer, type PageRequest } from '../../../../connectors/http/pager.js';
import { compileMapping } from '../../../../definitions/mapping/compile-mapping.js';

const all = Number.POSITIVE_INFINITY;

/** The requests of a pager fed with `answers` until it ends. */
function walk(pager: Pager, answers: readonly PageAnswer[]): PageRequest[] {
  const requests: PageRequest[] = [pager.first()];
  for (const answer of answers) {
    const next = pager.next(answer);
    if (next === undefined) return requests;
    requests.push(next);
  }
  return requests;
}

const offset: Paging = { style: 'offset', pageSize: 10, offsetParam: '_start', limitParam: '_limit' };

test('offset: moves by what was received, ends at an empty page or the total', () => {
  assert.deepEqual(
    walk(new Pager(offset, { size: 10, start: 0, want: all }), [{ count: 10 }, { count: 7 }, { count: 0 }]).map((r) => r.query),
    [
      { _start: 0, _limit: 10 },
      { _start: 10, _limit: 10 },
      // Seven where ten were asked: an API may give fewer per page than asked; only an empty page ends.
      { _start: 17, _limit: 10 },
    ],
  );
  assert.deepEqual(
    walk(new Pager(offset, { size: 10, start: 0, want: all }), [
      { count: 10, total: 17 },
      { count: 7, total: 17 },
    ]).map((r) => r.query),
    [
      { _start: 0, _limit: 10 },
      { _start: 10, _limit: 10 },
    ],
  );
});

test('offset: a pushed start and limit ask for no more than wanted', () => {
  assert.deepEqual(
    walk(new Pager(offset, { size: 4, start: 3, want: 10 }), [{ count: 4 }, { count: 4 }, { count: 2 }, { count: 0 }]).map((r) => r.query),
    [
      { _start: 3, _limit: 4 },
      { _start: 7, _limit: 4 },
      { _start: 11, _limit: 2 },
    ],
  );
});

const page: Paging = { style: 'page', pageSize: 10, pageParam: '_page', sizeParam: '_limit', firstPage: 1 };

test('page: page numbers of one size; a start inside a page passes over the records before it', () => {
  const pager = new Pager(page, { size: 4, start: 6, want: 5 });
  assert.equal(pager.drop, 2);
  assert.deepEqual(
    walk(pager, [{ count: 4 }, { count: 4 }, { count: 4 }]).map((r) => r.query),
    [
      { _page: 2, _limit: 4 },
      { _page: 3, _limit: 4 },
    ],
  );
  const zeroBased: Paging = { ...page, firstPage: 0 };
  assert.deepEqual(new Pager(zeroBased, { size: 5, start: 0, want: 3 }).first().query, { _page: 0, _limit: 3 });
  assert.deepEqual(
    walk(new Pager(page, { size: 2, start: 0, want: all }), [
      { count: 2, total: 3 },
      { count: 1, total: 3 },
    ]).map((r) => r.query),
    [
      { _page: 1, _limit: 2 },
      { _page: 2, _limit: 2 },
    ],
  );
});

test('page: an API with a smaller page size of its own is read to its end, by count and by short page', () => {
  const pages = (answers: PageAnswer[]) => walk(new Pager(page, { size: 5, start: 0, want: all }), answers).map((r) => r.query._page);
  // 8 records in pages of 3: the total is reached by records received, not by 2 pages × 5.
  assert.deepEqual(pages([{ count: 3, total: 8 }, { count: 3, total: 8 }, { count: 2, total: 8 }, { count: 0 }]), [1, 2, 3]);
  // No total: the page shorter than the API's own size is the last; the first short one is not.
  assert.deepEqual(pages([{ count: 3 }, { count: 3 }, { count: 2 }, { count: 0 }]), [1, 2, 3]);
  assert.deepEqual(pages([{ count: 3 }, { count: 0 }]), [1, 2]);
  // Page numbers for a start were counted in pages of 5: another size makes them point elsewhere.
  const skipping = () => new Pager(page, { size: 5, start: 7, want: all });
  assert.throws(() => walk(skipping(), [{ count: 3, total: 20 }]), PagingSizeError);
  assert.throws(() => walk(skipping(), [{ count: 3 }, { count: 3 }]), PagingSizeError);
  assert.throws(() => walk(skipping(), [{ count: 8 }]), PagingSizeError);
  assert.deepEqual(
    walk(skipping(), [{ count: 3 }, { count: 0 }]).map((r) => r.query._page),
    [2, 3],
    'a short last page is no other size',
  );
});

const cursor: Paging = { style: 'cursor', pageSize: 50, cursor: compileMapping('next'), cursorParam: 'after', sizeParam: 'limit' };

test("cursor: sends the answer's cursor back until there is none; the same cursor twice is a loop", () => {
  assert.deepEqual(
    walk(new Pager(cursor, { size: 50, start: 0, want: all }), [
      { count: 50, cursor: 'c1' },
      { count: 3, cursor: '' },
    ]).map((r) => r.query),
    [{ limit: 50 }, { after: 'c1', limit: 50 }],
  );
  const looping = new Pager(cursor, { size: 50, start: 0, want: all });
  looping.first();
  looping.next({ count: 1, cursor: 'same' });
  assert.throws(() => looping.next({ count: 1, cursor: 'same' }), PagingLoopError);
  // Enough records: no further request, whatever the cursor.
  assert.equal(new Pager(cursor, { size: 50, start: 0, want: 2 }).next({ count: 2, cursor: 'c1' }), undefined);
});

test('cursor and link: an empty page ends the read even when it names a next one', () => {
  assert.equal(new Pager(cursor, { size: 50, start: 0, want: all }).next({ count: 0, cursor: 'c9' }), undefined);
  const link: Paging = { style: 'link', pageSize: 25, sizeParam: undefined, next: undefined };
  assert.equal(new Pager(link, { size: 25, start: 0, want: all }).next({ count: 0, next: 'http://api/items?page=9' }), undefined);
});

test('link: the first request with its size, then the next links as they are', () => {
  const link: Paging = { style: 'link', pageSize: 25, sizeParam: 'per_page', next: undefined };
  const requests = walk(new Pager(link, { size: 25, start: 0, want: all }), [
    { count: 25, next: 'http://api/items?page=2' },
    { count: 25, next: 'http://api/items?page=3' },
    { count: 4 },
  ]);
  assert.deepEqual(requests, [
    { query: { per_page: 25 } },
    { url: 'http://api/items?page=2', query: {} },
    { url: 'http://api/items?page=3', query: {} },
  ]);
  const noSize: Paging = { style: 'link', pageSize: 25, sizeParam: undefined, next: undefined };
  assert.deepEqual(new Pager(noSize, { size: 25, start: 0, want: all }).first(), { query: {} });
  const looping = new Pager(link, { size: 25, start: 0, want: all });
  looping.next({ count: 1, next: 'http://api/items?page=2' });
  assert.throws(() => looping.next({ count: 1, next: 'http://api/items?page=2' }), /the same next link came twice/);
});

test('none: one request', () => {
  const none: Paging = { style: 'none', pageSize: 100 };
  assert.deepEqual(walk(new Pager(none, { size: 100, start: 0, want: all }), [{ count: 1000 }]), [{ query: {} }]);
});
