/**
 * The `Link` header (RFC 8288) as paging APIs send it: several links, quoted and bare parameters,
 * commas and semicolons inside URLs and quoted strings, several relation types in one `rel`, and
 * malformed parts that must not hide the good ones.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkTarget, parseLinkHeader } from '../../../../connectors/web/link-header.js';

test('links with their relations and parameters', () => {
  assert.deepEqual(parseLinkHeader('<https://h/items?page=2>; rel="next", <https://h/items?page=9>; rel=last; title="Last, final"'), [
    { target: 'https://h/items?page=2', rel: ['next'], params: { rel: 'next' } },
    { target: 'https://h/items?page=9', rel: ['last'], params: { rel: 'last', title: 'Last, final' } },
  ]);
});

test('commas and semicolons inside the URL do not split it', () => {
  assert.deepEqual(parseLinkHeader('<https://h/a;v=1?ids=1,2,3>;rel="next"'), [
    { target: 'https://h/a;v=1?ids=1,2,3', rel: ['next'], params: { rel: 'next' } },
  ]);
});

test('several relation types, any case; the first rel counts; escapes in quoted strings', () => {
  const [link] = parseLinkHeader('<b>; REL="Next  LAST"; rel=prev; title="say \\"hi\\""');
  assert.deepEqual(link, { target: 'b', rel: ['next', 'last'], params: { rel: 'Next  LAST', title: 'say "hi"' } });
});

test('a malformed link is passed over and the others still count', () => {
  const links = parseLinkHeader('garbage; rel=next, <https://h/2>; rel="next", <unclosed; rel=x');
  assert.deepEqual(
    links.map((link) => link.target),
    ['https://h/2'],
  );
  assert.deepEqual(parseLinkHeader(''), []);
  assert.deepEqual(parseLinkHeader(' , ,'), []);
});

test('linkTarget resolves the first link of a relation against the answer URL', () => {
  const header = '</api/items?page=3>; rel="prev next"';
  assert.equal(linkTarget(header, 'next', 'https://h/api/items?page=2'), 'https://h/api/items?page=3');
  assert.equal(linkTarget(header, 'NEXT', new URL('https://h/x')), 'https://h/api/items?page=3');
  assert.equal(linkTarget('<p2>; rel=next', 'next', 'https://h/api/items'), 'https://h/api/p2');
  assert.equal(linkTarget(header, 'last', 'https://h/'), undefined);
  assert.equal(linkTarget(null, 'next', 'https://h/'), undefined);
});
